#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DurableFiles

/// Replaces a file's content atomically and durably (``DurableFile/replace(_:through:permissions:writing:reached:failure:)``):
/// the bytes go to a new file in the same directory, which is flushed to disk (`fsync`), renamed
/// over the target, and the directory is flushed too — so a reader sees the old file or the new
/// one, never half of one, even after a crash.
struct AtomicFileWriter {
    /// The file to replace.
    let path: String

    /// Why the file could not be written: the step and the system's reason.
    struct Failure: Error, CustomStringConvertible {
        let path: String
        let step: String
        let code: Int32

        var description: String { "\(self.path): cannot \(self.step): \(String(cString: strerror(self.code)))" }

        /// A failed step of a ``DurableFile`` operation, in the words these messages use.
        init(_ step: DurableFile.Step, _ path: String, _ error: SystemCallError) {
            self.path = path
            self.code = error.code
            self.step = switch step {
            case .create: "create"
            case .status: "stat"
            case .write: "write"
            case .sync: "flush"
            case .rename: "replace"
            case .openDirectory: "open the directory"
            case .syncDirectory: "flush the directory"
            }
        }

        init(path: String, step: String, code: Int32) {
            self.path = path
            self.step = step
            self.code = code
        }
    }

    /// The directory the file is in.
    var directory: String { DurableFile.directory(of: self.path) }

    /// The file's name in its directory.
    var name: Substring {
        guard let slash = self.path.lastIndex(of: "/") else { return Substring(self.path) }
        return self.path[self.path.index(after: slash)...]
    }

    /// Replaces the file's content with `bytes`. The new file gets the mode a newly created file
    /// gets (0666 less the umask).
    ///
    /// - Throws: ``Failure``; the target is then unchanged and the temporary file removed.
    func write(_ bytes: [UInt8]) throws(Failure) {
        let temporary = "\(self.directory)/.\(self.name).listsync-\(getpid())"
        try DurableFile.replace(
            self.path, through: temporary, permissions: 0o666,
            writing: { descriptor throws(Failure) in
                do throws(SystemCallError) {
                    try FileDescriptorIO.writeAll(bytes, to: descriptor)
                } catch {
                    throw Failure(path: temporary, step: "write", code: error.code)
                }
            },
            failure: Failure.init
        )
    }
}
