#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An `AF_UNIX` address: a file system path, or a name in Linux's abstract namespace.
///
/// Abstract names are how `@name` in `NOTIFY_SOCKET` is spelled on the wire: `sun_path` starts
/// with a NUL byte and the address length, not a terminating NUL, says where the name ends.
public struct UnixSocketAddress: Sendable, Hashable {
    /// The bytes of `sun_path` that matter: the path without its NUL, or NUL plus the name.
    public let pathBytes: [UInt8]
    /// Whether ``pathBytes`` is an abstract name (it then starts with NUL).
    public var isAbstract: Bool { self.pathBytes.first == 0 }

    /// An address that does not fit in `sun_path`; `address` as written (`@name` when abstract).
    public struct TooLong: Error, Sendable, Hashable, CustomStringConvertible {
        public let address: String

        public var description: String {
            "socket address \"\(self.address)\" does not fit in sun_path (\(UnixSocketAddress.sunPathCapacity) bytes)"
        }
    }

    static let sunPathCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// A file system socket at `path`.
    public init(path: String) throws(TooLong) {
        guard path.utf8.count < Self.sunPathCapacity else { throw TooLong(address: path) }
        self.pathBytes = Array(path.utf8)
    }

    /// A socket named `name` in the abstract namespace (written `@name`).
    public init(abstractName name: String) throws(TooLong) {
        guard name.utf8.count + 1 <= Self.sunPathCapacity else { throw TooLong(address: "@" + name) }
        self.pathBytes = [0] + Array(name.utf8)
    }

    /// Calls `body` with the address as a `sockaddr` and its exact length.
    public func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
            sunPath.copyBytes(from: self.pathBytes)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? MemoryLayout<sa_family_t>.size
        // A path is measured with its terminating NUL (already zero in `address`); an abstract
        // name is exactly its bytes.
        let length = pathOffset + self.pathBytes.count + (self.isAbstract ? 0 : 1)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }
}
