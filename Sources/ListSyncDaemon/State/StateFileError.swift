#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a state file could not be read or written.
enum StateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A system call failed on the file, e.g. `write` with `ENOSPC`.
    case failed(String, SystemCallError)
    /// The path names a directory or something else that is not a regular file.
    case notARegularFile(String)

    /// Whether the file system is full (or the quota is exhausted): the write can succeed later.
    var isOutOfSpace: Bool {
        if case .failed(_, let error) = self { return error.code == ENOSPC || error.code == EDQUOT }
        return false
    }

    var description: String {
        switch self {
        case .failed(let path, let error): return "\(path): \(error)"
        case .notARegularFile(let path): return "\(path): not a regular file"
        }
    }
}
