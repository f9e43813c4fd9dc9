#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SocketServer {
    /// How many connections may wait to be accepted: the system's limit,
    /// `/proc/sys/net/core/somaxconn` (the kernel caps any larger value to it), or 4096 — the
    /// default since Linux 5.4 — when it cannot be read.
    ///
    /// A burst of clients connecting while the daemon is busy (encoding a snapshot, say) waits in
    /// this queue; when it is full, a client's `connect` fails with `EAGAIN` and must retry. A
    /// socket systemd passes has the backlog of its unit's `Backlog=`.
    static var listenBacklog: Int32 {
        let descriptor = open("/proc/sys/net/core/somaxconn", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 4096 }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0, let value = Int32(String(decoding: bytes[..<count].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }, as: UTF8.self)), value > 0 else {
            return 4096
        }
        return value
    }
}
