import DurableFiles

/// Why talking to systemd — notification, socket activation, watchdog — failed.
public enum SystemdError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An environment variable systemd sets has a value that cannot be right.
    case invalidVariable(name: String, value: String, reason: String)
    /// `NOTIFY_SOCKET` names a transport other than an `AF_UNIX` path or abstract name
    /// (newer systemd also knows `vsock:`), which this daemon does not speak.
    case unsupportedNotifySocket(String)
    /// A Unix socket address does not fit in `sun_path`.
    case socketAddressTooLong(String)
    /// A system call failed.
    case systemCall(SystemCallError)
    /// A passed file descriptor is not what the daemon can serve on.
    case unusableListeningSocket(fileDescriptor: Int32, reason: String)

    /// A one-line explanation for the log.
    public var description: String {
        switch self {
        case .invalidVariable(let name, let value, let reason):
            return "\(name)=\"\(value)\": \(reason)"
        case .unsupportedNotifySocket(let address):
            return "NOTIFY_SOCKET=\"\(address)\": only a path or an @abstract name is supported"
        case .socketAddressTooLong(let address):
            return "socket address \"\(address)\" does not fit in sun_path (108 bytes)"
        case .systemCall(let error):
            return error.description
        case .unusableListeningSocket(let descriptor, let reason):
            return "passed file descriptor \(descriptor) is unusable: \(reason)"
        }
    }
}
