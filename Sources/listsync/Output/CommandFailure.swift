import ArgumentParser
import ListFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a command could not do its job. Printed on standard error the way
/// compilers print diagnostics — `file:line:column: error: message` when the
/// problem has a place in a file — and the command exits with status 2.
enum CommandFailure: Error, CustomStringConvertible {
    /// The file at `path` could not be read as a list.
    case unreadableList(path: String, ListFormatError)

    /// The file's format could not be told from its extension.
    case unknownFormat(path: String)

    /// The options contradict each other or the file.
    case invalidOptions(String)

    /// The exit status of every failure (diff(1)'s "trouble").
    static let exitStatus = ExitCode(2)

    var description: String {
        switch self {
        case .unreadableList(let path, let error):
            if let position = error.position {
                return "\(path):\(position): error: \(error.message)"
            }
            if case .cannotRead(_, let code) = error {
                return "\(path): error: cannot read: \(String(cString: strerror(code)))"
            }
            return "\(path): error: \(error.message)"
        case .unknownFormat(let path):
            return "\(path): error: cannot tell the format from the file name; use --input-format csv|tsv|json|ndjson"
        case .invalidOptions(let message):
            return "listsync: error: \(message)"
        }
    }
}
