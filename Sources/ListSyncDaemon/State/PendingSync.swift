import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ListSyncProtocol

/// The flush a version still needs after its publication, with `sync_before_publish = false`:
/// its journal record or its checkpoint slot is written (in the page cache) before subscribers
/// see it, and flushed right after, on the same thread, before the next version is saved.
struct PendingSync: Sendable {
    /// The version whose state it flushes.
    let cursor: Cursor
    /// The file written, through the descriptor that wrote it.
    let file: UnflushedFile
    /// What it is, for crash points (`deltas`, `checkpoint`): `<kind>-synced` is reached once it is flushed.
    let kind: String

    /// How many times a failed flush is tried in all.
    static let attempts = 3

    /// What flushing did.
    struct Outcome: Sendable {
        let cursor: Cursor
        /// Every failed attempt's error, in order; empty when the first attempt succeeded.
        var failures: [StateFileError] = []
        /// Whether an attempt after a failure succeeded — which, after a failed writeback, does
        /// not prove the bytes reached the disk (Linux may have marked the pages clean).
        var laterAttemptSucceeded = false
        /// Why the failure could not be recorded in ``PublishedBeforeSyncMark`` (`nil`: it was, or
        /// there was no failure).
        var markFailure: StateFileError?
    }

    /// `fdatasync`s the file, trying again (up to ``attempts`` in all) when it fails.
    func flush(crashPoints: StateCrashPoints) -> Outcome {
        var outcome = Outcome(cursor: self.cursor)
        let failing = crashPoints.failsFlush(of: self.kind)
        for _ in 0..<Self.attempts {
            do throws(SystemCallError) {
                if failing { throw SystemCallError(call: "fdatasync", code: EIO) }
                try self.file.flush()
                outcome.laterAttemptSucceeded = !outcome.failures.isEmpty
                crashPoints.reach("\(self.kind)-synced")
                return outcome
            } catch {
                outcome.failures.append(.failed(self.file.path, error))
            }
        }
        return outcome
    }
}
