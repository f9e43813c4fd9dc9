#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The durable file operations shared by the daemon's state and the CLI's state files: one
/// atomic replacement (temporary file, `fsync`, rename, `fsync` of the directory) and one
/// append-and-sync, each done by one piece of code.
///
/// Each caller keeps its own error type (the daemon's `StateFileError`, the CLI's messages):
/// `failure` turns the step that failed, the path it failed on and the ``SystemCallError`` into it.
public enum DurableFile {
    /// A system call step of ``replace(_:through:permissions:writing:reached:failure:)`` or
    /// ``append(_:to:dataOnly:reached:failure:)``, for the caller's error.
    public enum Step: Hashable, Sendable {
        /// Creating (or opening) the file.
        case create
        /// Reading the file's status before an append.
        case status
        /// Writing the bytes (an append's).
        case write
        /// `fsync`/`fdatasync` of the file.
        case sync
        /// Renaming the temporary file over the target.
        case rename
        /// Opening the directory to flush it.
        case openDirectory
        /// `fsync` of the directory.
        case syncDirectory

        /// The step in the words of a message, `PATH: cannot OPERATION: …` (``SystemCallError/operation``).
        public var operation: String {
            switch self {
            case .create: "create"
            case .status: "stat"
            case .write: "write"
            case .sync: "flush"
            case .rename: "replace"
            case .openDirectory: "open the directory"
            case .syncDirectory: "flush the directory"
            }
        }
    }

    /// How far a replacement or an append got: the daemon's tests crash it at each of these.
    public enum Milestone: Hashable, Sendable {
        /// Every byte is written, not yet flushed.
        case written
        /// The file is flushed (and, for a replacement, closed).
        case synced
        /// The temporary file is renamed over the target.
        case renamed
    }

    /// Replaces the file at `path` atomically and durably: `body` writes the new content to
    /// `temporary` (created with `permissions`, in the same directory), which is `fsync`ed,
    /// renamed over `path`, and then the directory is `fsync`ed. A crash at any instant leaves
    /// either the old file or the new one (and perhaps a stale temporary file).
    ///
    /// - Throws: what `body` throws, or `failure(step, path, error)`; before the rename the
    ///   temporary file is removed and the target unchanged.
    public static func replace<Failure: Error>(
        _ path: String, through temporary: String, permissions: mode_t,
        writing body: (_ descriptor: Int32) throws(Failure) -> Void,
        reached: (Milestone) -> Void = { _ in },
        failure: (Step, String, SystemCallError) -> Failure
    ) throws(Failure) {
        let replacement: PendingReplacement
        do {
            replacement = try PendingReplacement(path, through: temporary, permissions: permissions)
        } catch {
            throw failure(error.step, error.path, error.error)
        }
        do throws(Failure) {
            try body(replacement.descriptor)
        } catch {
            replacement.discard()
            throw error
        }
        do {
            try replacement.commit(reached: reached)
        } catch {
            throw failure(error.step, error.path, error.error)
        }
    }

    /// Appends `bytes` to the file at `path` (which must exist) and flushes it: `fdatasync` when
    /// `dataOnly`, else `fsync`. When the write or the flush fails, the file is cut back to its
    /// old length, so it never ends in a torn record.
    public static func append<Failure: Error>(
        _ bytes: [UInt8], to path: String, dataOnly: Bool,
        reached: (Milestone) -> Void = { _ in },
        failure: (Step, String, SystemCallError) -> Failure
    ) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(.create, path, .lastError(of: "open")) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure(.status, path, .lastError(of: "fstat")) }
        do throws(Failure) {
            do {
                try FileDescriptorIO.writeAll(bytes, to: descriptor)
            } catch {
                throw failure(.write, path, error)
            }
            reached(.written)
            if dataOnly {
                guard fdatasync(descriptor) == 0 else { throw failure(.sync, path, .lastError(of: "fdatasync")) }
            } else {
                guard fsync(descriptor) == 0 else { throw failure(.sync, path, .lastError(of: "fsync")) }
            }
        } catch {
            _ = ftruncate(descriptor, status.st_size)
            throw error
        }
        reached(.synced)
    }

    /// `fsync`s the directory holding `path`, which makes a rename or a new entry in it durable.
    public static func syncDirectory<Failure: Error>(
        of path: String, failure: (Step, String, SystemCallError) -> Failure
    ) throws(Failure) {
        let directory = self.directory(of: path)
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(.openDirectory, directory, .lastError(of: "open")) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure(.syncDirectory, directory, .lastError(of: "fsync")) }
    }

    /// The directory holding `path`: what precedes its last `/` (`/` for a file at the root),
    /// or `.` for a bare name.
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
