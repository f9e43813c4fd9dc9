import DurableFiles

/// Why a watched file could not be read.
public enum FileReadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file changed during every attempt; it is still being written and will be announced
    /// again when it settles.
    case unstable(path: String, attempts: Int)
    /// The path names a directory, FIFO, socket or device rather than a regular file.
    case notARegularFile(path: String)
    /// A system call failed, e.g. `open` with `EACCES`.
    case systemCall(path: String, SystemCallError)

    public var description: String {
        switch self {
        case .unstable(let path, let attempts):
            return "\(path): the file kept changing while being read (\(attempts) attempts)"
        case .notARegularFile(let path):
            return "\(path): not a regular file"
        case .systemCall(let path, let error):
            return "\(path): \(error)"
        }
    }
}
