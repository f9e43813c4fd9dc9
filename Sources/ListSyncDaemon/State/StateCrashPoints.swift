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
final class StateCrashPoints: Sendable {
    /// The environment variable that arms the hook.
    static let variable = "LISTSYNCD_TEST_CRASH_AT"

    private let step: String?
    private let remaining: Atomic<Int>

    /// A hook armed by `setting` (the variable's value), or a disarmed one for `nil`.
    init(setting: String?) {
        let parts = setting?.split(separator: ":", maxSplits: 1)
        self.step = parts?.first.map(String.init)
        self.remaining = Atomic(parts.flatMap { $0.count == 2 ? Int($0[1]) : 1 } ?? 1)
    }

    /// A hook that never fires.
    static let none = StateCrashPoints(setting: nil)

    /// Kills the process if `step` is the armed one and its count is reached.
    func reach(_ step: String) {
        guard step == self.step else { return }
        if self.remaining.subtract(1, ordering: .relaxed).newValue == 0 {
            kill(getpid(), SIGKILL)
        }
    }
}
