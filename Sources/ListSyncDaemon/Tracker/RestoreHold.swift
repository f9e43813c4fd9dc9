#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A test hook: every watch's restore of its saved state waits until a file exists, so tests can
/// show what clients see while a watch restores — however fast the restore would be.
///
/// `LISTSYNCD_TEST_HOLD_RESTORE=<path>` holds each tracker before it reads its state back, until
/// `<path>` exists (polled every 20 ms) or the daemon shuts down (the tracker's task is
/// cancelled). Without the variable nothing waits. Like ``StateCrashPoints``, for tests only.
struct RestoreHold: Sendable {
    /// The environment variable that arms the hook.
    static let variable = "LISTSYNCD_TEST_HOLD_RESTORE"

    /// The file whose existence releases the hold; `nil`: disarmed.
    private let releasePath: String?

    /// A hook armed by `setting` (the variable's value: a path), or a disarmed one for `nil` or empty.
    init(setting: String?) {
        self.releasePath = setting.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A hook that never holds.
    static let none = RestoreHold(setting: nil)

    /// Returns once the release file exists, the task is cancelled, or at once when disarmed.
    func wait() async {
        guard let path = self.releasePath else { return }
        while access(path, F_OK) != 0 {
            guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { return }
        }
    }
}
