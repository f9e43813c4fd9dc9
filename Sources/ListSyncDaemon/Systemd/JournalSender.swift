#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import UnixSockets

/// Writes log records to systemd's journal through its native protocol (what `sd_journal_send`
/// does, without libsystemd): one `AF_UNIX` datagram per record to `/run/systemd/journal/socket`,
/// made of `FIELD=value` lines, so a record carries structured fields —
/// `journalctl LISTSYNC_WATCH=products` finds every record about that watch.
///
/// Used only when standard error is the journal (`JOURNAL_STREAM`, see
/// ``StandardErrorLogHandler/Style``). A record the socket does not take at once (too large for
/// one datagram, or journald's queue full) is not lost: the handler writes it to standard error.
public struct JournalSender: Sendable {
    /// journald's native socket.
    public static let socketPath = "/run/systemd/journal/socket"
    /// A test hook naming another socket to send to, like the other `LISTSYNCD_TEST_` variables.
    public static let testSocketVariable = "LISTSYNCD_TEST_JOURNAL_SOCKET"
    /// The largest datagram sent; larger records go to standard error.
    static let maximumDatagram = 200_000

    /// The connected datagram socket, close-on-exec, shared by every handler of the process.
    private let descriptor: Int32

    /// A sender connected to journald's socket (or the test hook's); `nil` when nothing listens there.
    public init?(environment: ProcessEnvironment) {
        let path = environment[Self.testSocketVariable].flatMap { $0.isEmpty ? nil : $0 } ?? Self.socketPath
        guard let address = try? UnixSocketAddress(path: path) else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        guard address.withSocketAddress({ connect(descriptor, $0, $1) }) == 0 else {
            close(descriptor)
            return nil
        }
        // journald may be slow; a record must never block the thread that logs it.
        var size: Int32 = 8 << 20
        setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        self.descriptor = descriptor
    }

    /// The journal fields the daemon's log metadata maps to: a record about a watch carries
    /// `LISTSYNC_WATCH`, and `LISTSYNC_CURSOR` and `LISTSYNC_PATH` when it names them.
    static let fieldNames: [String: String] = ["watch": "LISTSYNC_WATCH", "cursor": "LISTSYNC_CURSOR", "path": "LISTSYNC_PATH"]

    /// The datagram for `fields`, in order: `NAME=value\n`, or for a value with a line break
    /// `NAME\n`, its length as 64-bit little endian, the value and `\n` (the protocol's binary form).
    static func datagram(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (name, value) in fields {
            bytes.append(contentsOf: name.utf8)
            if value.utf8.contains(UInt8(ascii: "\n")) {
                bytes.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(value.utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            } else {
                bytes.append(UInt8(ascii: "="))
            }
            bytes.append(contentsOf: value.utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// Sends one record's `fields`; `false` when the journal did not take it at once.
    func send(_ fields: [(name: String, value: String)]) -> Bool {
        let bytes = Self.datagram(fields)
        guard bytes.count <= Self.maximumDatagram else { return false }
        let sent = bytes.withUnsafeBytes { Glibc.send(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        return sent == bytes.count
    }
}
