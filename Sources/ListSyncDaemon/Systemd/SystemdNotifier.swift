import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import UnixSockets

/// Sends `sd_notify` messages to systemd without libsystemd: one `AF_UNIX` datagram to the
/// socket named by `$NOTIFY_SOCKET`.
///
/// Each ``notify(_:)`` opens a datagram socket, sends and closes it, as `sd_notify` does, so the
/// notifier is a plain value that any thread can use. The send does not block: a notification
/// systemd cannot take right now is reported as an error (`EAGAIN`) rather than stalling the
/// caller's event loop.
public struct SystemdNotifier: Sendable, Hashable {
    /// The value of `NOTIFY_SOCKET` this notifier sends to.
    public let notifySocket: String
    private let address: UnixSocketAddress

    /// A notifier for `notifySocket`: a path, or `@name` for an abstract socket.
    ///
    /// - Throws: ``SystemdError/unsupportedNotifySocket(_:)`` or
    ///   ``SystemdError/socketAddressTooLong(_:)``.
    public init(notifySocket: String) throws(SystemdError) {
        self.notifySocket = notifySocket
        self.address = try UnixSocketAddress(notifySocket: notifySocket)
    }

    /// The notifier `NOTIFY_SOCKET` asks for, or `nil` when the variable is unset or empty (the
    /// daemon was not started by systemd with `Type=notify`).
    public init?(environment: ProcessEnvironment) throws(SystemdError) {
        guard let notifySocket = environment["NOTIFY_SOCKET"], !notifySocket.isEmpty else { return nil }
        try self.init(notifySocket: notifySocket)
    }

    /// Sends `notifications` in one datagram, so systemd applies them together (for example
    /// `.ready` with a `.status`).
    ///
    /// - Throws: ``SystemdError/systemCall(_:)`` when the socket cannot be created or the
    ///   datagram not sent (`ENOENT` or `ECONNREFUSED` when nobody listens, `EAGAIN` when systemd's queue is full).
    public func notify(_ notifications: [SystemdNotification]) throws(SystemdError) {
        let message = Array(notifications.flatMap(\.assignments).joined(separator: "\n").utf8)
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .systemCall(.lastError(of: "socket")) }
        defer { close(descriptor) }
        let sent = self.address.withSocketAddress { address, length in
            message.withUnsafeBytes { bytes in
                sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), address, length)
            }
        }
        guard sent >= 0 else { throw .systemCall(.lastError(of: "sendto")) }
    }

    /// Sends the given notifications in one datagram, like the array form.
    public func notify(_ notifications: SystemdNotification...) throws(SystemdError) {
        try self.notify(notifications)
    }
}
