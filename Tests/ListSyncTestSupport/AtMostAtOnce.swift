import Synchronization
import Testing

/// A suite trait: at most `width` of the suite's test cases run at once, the others wait their
/// turn without holding a thread. Between `.serialized` (one chain: the suite's time is the sum of
/// its tests) and no limit (every test starts a daemon at once on a two-core machine), it keeps
/// `width` chains busy, each taking the next waiting test as soon as one ends, in the order the
/// tests were started. A test case marked ``Alone`` (`.alone`, on it or on its suite) takes every
/// place. (A recursive suite trait must be a `TestTrait` too: Swift Testing traps
/// while planning the run if a trait it carries down to a test is not one.)
package struct AtMostAtOnce: SuiteTrait, TestTrait, TestScoping {
    private let gate: Gate

    package var isRecursive: Bool { true }

    /// Scopes each test case (not the suite, not a parameterized function as a whole): a case holds
    /// one of the `width` places while it runs.
    package func scopeProvider(for test: Test, testCase: Test.Case?) -> AtMostAtOnce? {
        testCase == nil ? nil : self
    }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let places = test.traits.contains { $0 is Alone } ? self.width : 1
        try await self.gate.enter(taking: places)
        defer { self.gate.leave(giving: places) }
        try await function()
    }

    private let width: Int

    fileprivate init(width: Int) {
        self.width = max(width, 1)
        self.gate = Gate(width: self.width)
    }

    /// Marks a suite (or a test) of an ``AtMostAtOnce`` suite whose test cases run alone: each
    /// takes every place — the timing-sensitive ones, which another daemon beside them would slow.
    package struct Alone: SuiteTrait, TestTrait {
        package var isRecursive: Bool { true }
        fileprivate init() {}
    }

    /// The places and the waiters of one trait, in the order they came.
    private final class Gate: Sendable {
        private struct State {
            var free: Int
            var waiters: [(id: Int, places: Int, continuation: CheckedContinuation<Void, any Error>)] = []
            var nextID = 0
        }

        private let state: Mutex<State>

        init(width: Int) {
            self.state = Mutex(State(free: max(width, 1)))
        }

        /// Takes `places` places, waiting (cancellably) behind the earlier waiters until they are free.
        func enter(taking places: Int) async throws {
            let id = self.state.withLock { state -> Int? in
                if state.waiters.isEmpty && state.free >= places {
                    state.free -= places
                    return nil
                }
                state.nextID += 1
                return state.nextID
            }
            guard let id else { return }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let outcome = self.state.withLock { state -> Result<Void, any Error>? in
                        // A place freed between the check above and now is taken at once; a
                        // cancellation that came before the waiter was queued ends it here.
                        if state.waiters.isEmpty && state.free >= places {
                            state.free -= places
                            return .success(())
                        }
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.waiters.append((id, places, continuation))
                        return nil
                    }
                    if let outcome { continuation.resume(with: outcome) }
                }
            } onCancel: {
                let (waiter, admitted) = self.state.withLock { state in
                    let waiter = state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
                    // A waiter that held back the ones behind it no longer does.
                    return (waiter, Self.admit(&state))
                }
                waiter?.resume(throwing: CancellationError())
                admitted.forEach { $0.resume() }
            }
        }

        /// Frees `places` places and admits the waiters, in order, while the first one's places are free.
        func leave(giving places: Int) {
            let admitted = self.state.withLock { state in
                state.free += places
                return Self.admit(&state)
            }
            admitted.forEach { $0.resume() }
        }

        private static func admit(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
            var admitted: [CheckedContinuation<Void, any Error>] = []
            while let first = state.waiters.first, first.places <= state.free {
                state.free -= first.places
                admitted.append(state.waiters.removeFirst().continuation)
            }
            return admitted
        }
    }
}

extension Trait where Self == AtMostAtOnce.Alone {
    /// In an ``AtMostAtOnce`` suite: each test case runs alone (see ``AtMostAtOnce/Alone``).
    package static var alone: Self { AtMostAtOnce.Alone() }
}

extension Trait where Self == AtMostAtOnce {
    /// At most `width` test cases of the suite run at once (see ``AtMostAtOnce``).
    package static func atMostAtOnce(_ width: Int) -> Self {
        AtMostAtOnce(width: width)
    }
}
