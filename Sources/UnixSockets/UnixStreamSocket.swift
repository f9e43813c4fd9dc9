import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A client's end of a stream socket to a Unix socket path, as any program could open one:
/// blocking, closed on exec, written whole. For the programs that speak the wire protocol below
/// NIO — the latency benchmark's subscribers and the tests' protocol clients.
public enum UnixStreamSocket {
    /// A blocking socket connected to `path`. With `waiting`, a blocking `connect` (it waits
    /// while the server's listen queue is full); without, one non-blocking `connect` that fails
    /// at once, with `EAGAIN` when the queue is full, as a client in a burst does.
    ///
    /// - Throws: `SystemCallError` naming the call and `path`, `code` being `connect`'s `errno` (`ENOENT`, `ECONNREFUSED`,
    ///   `EAGAIN`, …); the socket is closed then.
    public static func connect(to path: String, waiting: Bool = true) throws(SystemCallError) -> Int32 {
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path: path)
        } catch {
            throw SystemCallError(call: "connect", code: ENAMETOOLONG, path: path)
        }
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (waiting ? 0 : Int32(SOCK_NONBLOCK.rawValue))
        let descriptor = socket(AF_UNIX, flags, 0)
        guard descriptor >= 0 else { throw .lastError(of: "socket", path: path) }
        let connected = address.withSocketAddress { systemConnect(descriptor, $0, $1) }
        guard connected == 0 else {
            let failure = SystemCallError.lastError(of: "connect", path: path)
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
    /// - Throws: `SystemCallError` with `send`'s `errno`; some bytes may be sent.
    public static func sendAll(_ bytes: [UInt8], to descriptor: Int32) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw .lastError(of: "send") }
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
