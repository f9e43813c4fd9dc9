#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the metrics endpoint listens (`metrics_listen`): a numeric IP address and a TCP port,
/// `"127.0.0.1:9464"` or `"[::1]:9464"`. No host names: the daemon does no name lookups to bind.
public struct MetricsAddress: Sendable, Hashable, CustomStringConvertible {
    /// The IPv4 or IPv6 address, without brackets.
    public var host: String
    /// The TCP port, 1 to 65535.
    public var port: Int

    /// An address from its parts; see ``init(parsing:)`` for text.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`, an IPv6 host in brackets.
    ///
    /// - Throws: ``MetricsAddress/Invalid`` saying what is wrong.
    public init(parsing text: String) throws(Invalid) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw Invalid(reason: "\"\(text)\" is not HOST:PORT; an IPv6 address goes in brackets, as in \"[::1]:9464\"")
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":" as Character) else {
                throw Invalid(reason: "\"\(text)\" is not HOST:PORT such as \"127.0.0.1:9464\" (an IPv6 address goes in brackets)")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard Self.isNumericAddress(String(host)) else {
            throw Invalid(reason: "\"\(host)\" is not an IP address such as 127.0.0.1 or ::1 (host names are not looked up)")
        }
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw Invalid(reason: "\"\(portText)\" is not a TCP port from 1 to 65535")
        }
        self.init(host: String(host), port: port)
    }

    /// `127.0.0.1:9464`, `[::1]:9464`.
    public var description: String {
        self.host.contains(":" as Character) ? "[\(self.host)]:\(self.port)" : "\(self.host):\(self.port)"
    }

    /// Why a `metrics_listen` value is not an address.
    public struct Invalid: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { self.reason }
    }

    private static func isNumericAddress(_ host: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }
}
