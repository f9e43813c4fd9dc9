#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A test hook: the daemon kills itself with `SIGKILL` when writing its state reaches a named
/// step, so tests can show recovery from a crash between any two writes.
///
/// `LISTSYNCD_TEST_CRASH_AT=<step>[:<n>]` kills at the *n*th time (default the first) the step is
/// reached. The steps, in the order a version is saved (see ``WatchStateStore``):
/// `deltas-written` and `deltas-synced` (its record appended to the journal, before and after
/// the `fdatasync`) — or, for a version written whole, `checkpoint-started` (the list's bytes are
/// written over the older slot, its header not yet), `checkpoint-written` (the slot is written
/// whole, before its `fdatasync`), `checkpoint-synced` (after it) — then `published` (the
/// version is durable and about to be handed to subscribers); then, once it is published,
/// `log-written` and `log-synced` (its changeset appended to the log, before and after the
/// `fdatasync`), or for a new or compacted log `log-rewrite-written`, `log-rewrite-synced` (the
/// temporary file `fsync`ed) and `log-rewrite-renamed` (before the directory's `fsync`); then,
/// for a journal started afresh or rebased, `deltas-rewrite-written`, `-synced` and `-renamed`,
/// and for a full checkpoint the three `checkpoint-` steps. Without the variable nothing happens.
///
/// With `sync_before_publish = false` the flush of a version's record or slot comes after its
/// publication: `deltas-written` (or `checkpoint-written`), `published`, then
/// `published-unsynced` (handed to subscribers, not yet flushed), then `deltas-synced` (or
/// `checkpoint-synced`).
///
/// `LISTSYNCD_TEST_HOLD_AT=<step>:<milliseconds>[:<n>]` makes the thread that reaches the step
/// the *n*th time (by default every time) wait that long, so a test can act while the daemon is
/// held there.
///
/// `LISTSYNCD_TEST_FAIL_FLUSH=<kind>[:<n>]` makes every attempt of the *n*th flush after a
/// publication (`sync_before_publish = false`) of a `<kind>` (`deltas`, `checkpoint`) fail with
/// `EIO`, as a disk that fails its writeback would.
final class StateCrashPoints: Sendable {
    /// The environment variable that arms the hook.
    static let variable = "LISTSYNCD_TEST_CRASH_AT"
    /// The environment variable that holds the daemon at a step.
    static let holdVariable = "LISTSYNCD_TEST_HOLD_AT"
    /// The environment variable that fails a flush after a publication.
    static let failedFlushVariable = "LISTSYNCD_TEST_FAIL_FLUSH"

    private let step: String?
    private let remaining: Atomic<Int>
    private let hold: (step: String, milliseconds: Int, occurrence: Int?)?
    private let holdsReached = Atomic(0)
    private let failedFlush: (kind: String, occurrence: Int)?
    private let flushesReached = Atomic(0)

    /// A hook armed by `setting` (the variable's value), or a disarmed one for `nil`; and held
    /// at a step by `hold` (``holdVariable``'s value).
    init(setting: String?, hold: String? = nil, failedFlush: String? = nil) {
        let parts = setting?.split(separator: ":", maxSplits: 1)
        self.step = parts?.first.map(String.init)
        self.remaining = Atomic(parts.flatMap { $0.count == 2 ? Int($0[1]) : 1 } ?? 1)
        if let held = hold?.split(separator: ":", maxSplits: 2), held.count >= 2, let milliseconds = Int(held[1]) {
            self.hold = (String(held[0]), milliseconds, held.count == 3 ? Int(held[2]) : nil)
        } else {
            self.hold = nil
        }
        if let failing = failedFlush?.split(separator: ":", maxSplits: 1), let kind = failing.first {
            self.failedFlush = (String(kind), failing.count == 2 ? Int(failing[1]) ?? 1 : 1)
        } else {
            self.failedFlush = nil
        }
    }

    /// A hook that never fires.
    static let none = StateCrashPoints(setting: nil)

    /// Whether the flush after a publication of a `kind` about to start is the one to fail
    /// (counted once per flush, not per attempt).
    func failsFlush(of kind: String) -> Bool {
        guard let failing = self.failedFlush, failing.kind == kind else { return false }
        return self.flushesReached.add(1, ordering: .relaxed).newValue == failing.occurrence
    }

    /// Kills the process if `step` is the armed one and its count is reached; waits if it is
    /// the held one.
    func reach(_ step: String) {
        if let hold = self.hold, hold.step == step,
            hold.occurrence.map({ $0 == self.holdsReached.add(1, ordering: .relaxed).newValue }) ?? true
        {
            var delay = timespec(tv_sec: hold.milliseconds / 1000, tv_nsec: (hold.milliseconds % 1000) * 1_000_000)
            var left = timespec()
            while nanosleep(&delay, &left) != 0, errno == EINTR {
                delay = left
            }
        }
        guard step == self.step else { return }
        if self.remaining.subtract(1, ordering: .relaxed).newValue == 0 {
            kill(getpid(), SIGKILL)
        }
    }
}
