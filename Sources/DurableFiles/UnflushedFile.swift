#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file whose last write is in the page cache but not yet flushed: the descriptor it was
/// written through, kept open so that the flush that follows (``flush()``) reports an error of
/// the writeback of those very pages, which a descriptor opened later might not see. Closed
/// when the value goes.
///
/// What writes it says when the flush is due; until it returns, a crash of the process loses
/// nothing (the kernel keeps what was written), but a crash of the machine may.
public final class UnflushedFile: Sendable {
    /// The file's path, for errors.
    public let path: String
    private let descriptor: Int32

    /// Keeps a duplicate of `descriptor` (which the caller still closes) open for the flush.
    ///
    /// - Throws: ``SystemCallError`` when `dup` fails.
    public init(duplicating descriptor: Int32, path: String) throws(SystemCallError) {
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else { throw .lastError(of: "fcntl(F_DUPFD_CLOEXEC)") }
        self.descriptor = duplicate
        self.path = path
    }

    /// `fdatasync`s the file. After a failure the pages whose writeback failed may be marked
    /// clean (Linux), so a second call that succeeds does not prove the bytes reached the disk.
    public func flush() throws(SystemCallError) {
        guard fdatasync(self.descriptor) == 0 else { throw .lastError(of: "fdatasync") }
    }

    deinit {
        close(self.descriptor)
    }
}
