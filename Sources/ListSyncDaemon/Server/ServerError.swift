import DurableFiles

/// Why the socket server could not start.
public enum ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another process accepts connections on the socket path: another daemon is running.
    case socketInUse(path: String)
    /// Something other than a socket is at the socket path; it is left alone.
    case notASocket(path: String)
    /// A system call on the socket path failed.
    case systemCall(path: String, SystemCallError)
    /// The socket's directory is missing and could not be created (only the last level is).
    case socketDirectoryUnavailable(directory: String, SystemCallError)
    /// Binding the socket failed.
    case bindFailed(path: String, reason: String)
    /// The passed (socket-activated) descriptor could not be used.
    case adoptionFailed(descriptor: Int32, reason: String)

    public var description: String {
        switch self {
        case .socketInUse(let path):
            return "\(path): another process is listening on this socket (is another listsyncd running?)"
        case .notASocket(let path):
            return "\(path): exists and is not a socket; remove it or configure another socket path"
        case .systemCall(let path, let error):
            return "\(path): \(error)"
        case .socketDirectoryUnavailable(let directory, let error):
            return "the socket's directory \(directory) does not exist and cannot be created (\(error)); create it, or configure another socket path"
        case .bindFailed(let path, let reason):
            return "\(path): cannot bind: \(reason)"
        case .adoptionFailed(let descriptor, let reason):
            return "cannot serve on the passed descriptor \(descriptor): \(reason)"
        }
    }
}
