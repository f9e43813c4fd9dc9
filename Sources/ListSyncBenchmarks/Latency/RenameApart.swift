import Foundation
import Synchronization

/// A rename made on a thread of its own, so that the benchmark's subscribers are read while it
/// runs: a rename over a large file on ext4 returns only once the replaced file's blocks are
/// freed (40–50 ms for 88 MB on this machine, after its event is queued), and a subscriber read
/// on the renaming thread would time a changeset that arrived sooner when that call returns.
/// A subscriber in another process, as users run them, does not wait for the writer's call.
final class RenameApart: Sendable {
    private let started = Mutex<ContinuousClock.Instant?>(nil)
    private let failure = Mutex<Int32?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts renaming `from` over `to`, and returns once the rename is about to be called.
    init(from: String, to: String) {
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            self.started.withLock { $0 = .now }
            ready.signal()
            if Glibc.rename(from, to) != 0 {
                let code = errno
                self.failure.withLock { $0 = code }
            }
            self.done.signal()
        }
        thread.name = "rename"
        thread.start()
        ready.wait()
    }

    /// When the rename was called.
    var start: ContinuousClock.Instant {
        self.started.withLock { $0 } ?? .now
    }

    /// Waits until the rename returned; throws when it failed.
    func finish() throws {
        self.done.wait()
        if let code = self.failure.withLock({ $0 }) {
            throw LatencySubscribers.Failure(description: "rename: \(String(cString: strerror(code)))")
        }
    }
}
