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

    /// The directory the file is in.
    var directory: String { DurableFile.directory(of: self.path) }

    /// The file's name in its directory.
    var name: Substring {
        guard let slash = self.path.lastIndex(of: "/") else { return Substring(self.path) }
        return self.path[self.path.index(after: slash)...]
    }

    /// The temporary file a new content is written to before it is renamed over the file:
    /// `.NAME.listsync-PID` beside it.
    var temporaryPath: String { "\(self.directory)/.\(self.name).listsync-\(getpid())" }

    /// Replaces the file's content with `bytes`. The new file gets the mode a newly created file
    /// gets (0666 less the umask).
    ///
    /// - Throws: ``SystemCallError`` naming the file and the step (`PATH: cannot create: open:
    ///   …`); the target is then unchanged and the temporary file removed.
    func write(_ bytes: [UInt8]) throws(SystemCallError) {
        let temporary = self.temporaryPath
        try DurableFile.replace(
            self.path, through: temporary, permissions: 0o666,
            writing: { descriptor throws(SystemCallError) in
                do throws(SystemCallError) {
                    try FileDescriptorIO.writeAll(bytes, to: descriptor)
                } catch {
                    throw error.on(temporary, doing: "write")
                }
            },
            failure: { step, path, error in error.on(path, doing: step.operation) }
        )
    }
}
