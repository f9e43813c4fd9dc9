import Dispatch

/// Waiting for a descriptor to have something to read without holding a thread: a Dispatch read
/// source wakes the waiting task, a Dispatch timer ends the wait at its deadline. A blocking
/// `poll` or `recv` would hold a thread of the cooperative pool — which is only as wide as the
/// machine — for the whole wait, and stall every other test's tasks with it.
package enum Readiness {
    /// Waits until `descriptor` is readable (data, end of stream or an error to collect); `false`
    /// when `timeout` passes first.
    package static func readable(_ descriptor: Int32, timeout: Duration) async -> Bool {
        let wait = Wait(descriptor: descriptor)
        return await withCheckedContinuation { continuation in
            wait.start(continuation, timeout: timeout)
        }
    }

    /// The queue every wait's handlers run on: they only resume a task, so one serial queue
    /// serves all, and a wait's state needs no lock.
    private static let queue = DispatchQueue(label: "ListSyncTestSupport.Readiness")

    /// One wait: the read source and the timer race, the first to fire resumes the task and
    /// cancels both.
    private final class Wait: @unchecked Sendable {
        private let source: any DispatchSourceRead
        private let timer: any DispatchSourceTimer
        private var continuation: CheckedContinuation<Bool, Never>?

        init(descriptor: Int32) {
            self.source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: Readiness.queue)
            self.timer = DispatchSource.makeTimerSource(queue: Readiness.queue)
        }

        func start(_ continuation: CheckedContinuation<Bool, Never>, timeout: Duration) {
            Readiness.queue.sync { self.continuation = continuation }
            let (seconds, attoseconds) = max(timeout, .zero).components
            let nanoseconds = Int(min(seconds, 86_400)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            self.source.setEventHandler { self.finish(ready: true) }
            self.timer.setEventHandler { self.finish(ready: false) }
            self.timer.schedule(deadline: .now() + .nanoseconds(nanoseconds))
            self.source.resume()
            self.timer.resume()
        }

        /// On the queue: resumes the task once, and stops watching the descriptor and the clock.
        private func finish(ready: Bool) {
            guard let continuation = self.continuation else { return }
            self.continuation = nil
            self.source.cancel()
            self.timer.cancel()
            continuation.resume(returning: ready)
        }
    }
}
