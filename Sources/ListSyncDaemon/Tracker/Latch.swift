import Synchronization

/// A one-shot latch: something that happens once, which any number of tasks can wait for.
final class Latch: Sendable {
    private enum State {
        /// Not yet: these tasks wait.
        case pending([CheckedContinuation<Void, Never>])
        /// It happened; waiting returns at once.
        case fired
    }

    private let state = Mutex(State.pending([]))

    /// Opens the latch and resumes every waiter; later calls do nothing.
    func fire() {
        let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard case .pending(let waiters) = state else { return [] }
            state = .fired
            return waiters
        }
        for waiter in waiters {
            waiter.resume()
        }
    }

    /// Whether ``fire()`` has been called.
    var isFired: Bool {
        self.state.withLock { state in
            if case .fired = state { return true }
            return false
        }
    }

    /// Returns once ``fire()`` has been called.
    func wait() async {
        await withCheckedContinuation { continuation in
            let fired = self.state.withLock { state -> Bool in
                guard case .pending(var waiters) = state else { return true }
                waiters.append(continuation)
                state = .pending(waiters)
                return false
            }
            if fired { continuation.resume() }
        }
    }
}
