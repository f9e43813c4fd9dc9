#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A replacement of a file written in pieces, as its content arrives: the pieces go to a
/// temporary file in the file's directory, which ``commit(reached:)`` flushes (`fsync`), renames
/// over the file and makes durable (`fsync` of the directory); ``discard()`` — or dropping the
/// replacement uncommitted — removes it and leaves the file as it was.
///
/// What lets a client write a large list to its output while the list still streams in, and
/// replace the output only once the list is verified. ``DurableFile/replace(_:through:permissions:writing:reached:failure:)``
/// is one of these written at once.
public final class PendingReplacement {
    /// A step that failed, the path it failed on, and the system call's error.
    public struct Failure: Error, Sendable {
        /// The step.
        public let step: DurableFile.Step
        /// The path the step failed on: the temporary file, the target, or its directory.
        public let path: String
        /// The system call's error.
        public let error: SystemCallError

        /// The error naming the path and the step: `PATH: cannot OPERATION: …`.
        public var described: SystemCallError { self.error.on(self.path, doing: self.step.operation) }
    }

    /// The file replaced on commit.
    public let path: String
    /// The temporary file the pieces go to.
    public let temporary: String
    /// The temporary file, open for writing; `-1` once committed or discarded.
    public private(set) var descriptor: Int32

    /// Creates (or truncates) `temporary` with `permissions`, in `path`'s directory.
    ///
    /// - Throws: ``Failure`` (`create`).
    public init(_ path: String, through temporary: String, permissions: mode_t) throws(Failure) {
        self.path = path
        self.temporary = temporary
        self.descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, permissions)
        guard self.descriptor >= 0 else { throw Failure(step: .create, path: temporary, error: .lastError(of: "open")) }
    }

    deinit {
        self.discard()
    }

    /// Whether the replacement is still open for writing (neither committed nor discarded).
    public var isOpen: Bool { self.descriptor >= 0 }

    /// Appends `bytes` to the temporary file.
    ///
    /// - Throws: ``Failure`` (`write`); the replacement is then discarded.
    public func write(_ bytes: [UInt8]) throws(Failure) {
        guard self.isOpen, !bytes.isEmpty else { return }
        do {
            try FileDescriptorIO.writeAll(bytes, to: self.descriptor)
        } catch {
            self.discard()
            throw Failure(step: .write, path: self.temporary, error: error)
        }
    }

    /// Flushes the temporary file, renames it over ``path`` and flushes the directory.
    ///
    /// - Throws: ``Failure``; before the rename, the temporary file is removed and the target
    ///   unchanged.
    public func commit(reached: (DurableFile.Milestone) -> Void = { _ in }) throws(Failure) {
        guard self.isOpen else { return }
        reached(.written)
        guard fsync(self.descriptor) == 0 else {
            let error = SystemCallError.lastError(of: "fsync")
            self.discard()
            throw Failure(step: .sync, path: self.temporary, error: error)
        }
        close(self.descriptor)
        self.descriptor = -1
        reached(.synced)
        guard rename(self.temporary, self.path) == 0 else {
            let error = SystemCallError.lastError(of: "rename")
            unlink(self.temporary)
            throw Failure(step: .rename, path: self.path, error: error)
        }
        reached(.renamed)
        try DurableFile.syncDirectory(of: self.path) { step, path, error in Failure(step: step, path: path, error: error) }
    }

    /// Closes and removes the temporary file; the target stays as it was. Nothing once
    /// committed or discarded.
    public func discard() {
        guard self.isOpen else { return }
        close(self.descriptor)
        self.descriptor = -1
        unlink(self.temporary)
    }
}
