#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file's content atomically and durably: the bytes go to a new file in the same
/// directory, which is flushed to disk (`fsync`), renamed over the target, and the directory is
/// flushed too — so a reader sees the old file or the new one, never half of one, even after a
/// crash.
struct AtomicFileWriter {
    /// The file to replace.
    let path: String

    /// Why the file could not be written: the step and the system's reason.
    struct Failure: Error, CustomStringConvertible {
        let path: String
        let step: String
        let code: Int32

        var description: String { "\(self.path): cannot \(self.step): \(String(cString: strerror(self.code)))" }
    }

    /// The directory the file is in.
    var directory: String {
        guard let slash = self.path.lastIndex(of: "/") else { return "." }
        return slash == self.path.startIndex ? "/" : String(self.path[..<slash])
    }

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
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw Failure(path: temporary, step: "create", code: errno) }
        do throws(Failure) {
            defer { close(descriptor) }
            do {
                try FileDescriptorIO.writeAll(bytes, to: descriptor)
            } catch {
                throw Failure(path: temporary, step: "write", code: error.code)
            }
            guard fsync(descriptor) == 0 else { throw Failure(path: temporary, step: "flush", code: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, self.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(path: self.path, step: "replace", code: code)
        }
        let directory = open(self.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw Failure(path: self.directory, step: "open the directory", code: errno) }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw Failure(path: self.directory, step: "flush the directory", code: errno) }
    }
}
