#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A client's end of a stream socket to a Unix socket path, as any program could open one:
/// blocking, closed on exec, written whole. For the programs that speak the wire protocol below
/// NIO — the latency benchmark's subscribers and the tests' protocol clients.
public enum UnixStreamSocket {
    /// A socket call failed: which, on what path (when it names one), and the system's `errno`.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let operation: String
        public let path: String?
        public let code: Int32

        public var description: String {
            "\(self.operation)\(self.path.map { " " + $0 } ?? ""): \(String(cString: strerror(self.code)))"
        }
    }

    /// A blocking socket connected to `path`. With `waiting`, a blocking `connect` (it waits
    /// while the server's listen queue is full); without, one non-blocking `connect` that fails
    /// at once, with `EAGAIN` when the queue is full, as a client in a burst does.
    ///
    /// - Throws: ``Failure``, `code` being `connect`'s `errno` (`ENOENT`, `ECONNREFUSED`,
    ///   `EAGAIN`, …); the socket is closed then.
    public static func connect(to path: String, waiting: Bool = true) throws(Failure) -> Int32 {
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path: path)
        } catch {
            throw Failure(operation: "connect", path: path, code: ENAMETOOLONG)
        }
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (waiting ? 0 : Int32(SOCK_NONBLOCK.rawValue))
        let descriptor = socket(AF_UNIX, flags, 0)
        guard descriptor >= 0 else { throw Failure(operation: "socket", path: path, code: errno) }
        let connected = address.withSocketAddress { systemConnect(descriptor, $0, $1) }
        guard connected == 0 else {
            let failure = Failure(operation: "connect", path: path, code: errno)
            close(descriptor)
            throw failure
        }
        if !waiting {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        }
        return descriptor
    }

    /// Sends every byte of `bytes` on `descriptor`, without `SIGPIPE` when the peer is gone.
    ///
    /// - Throws: ``Failure`` with `send`'s `errno`; some bytes may be sent.
    public static func sendAll(_ bytes: [UInt8], to descriptor: Int32) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw Failure(operation: "send", path: nil, code: errno) }
            offset += sent
        }
    }
}

/// connect(2), named apart from ``UnixStreamSocket/connect(to:waiting:)``.
private func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
    Glibc.connect(descriptor, address, length)
    #else
    Musl.connect(descriptor, address, length)
    #endif
}
