import Foundation
import Glibc
import Synchronization

/// Runs blocking work on a thread of its own, so a writer that sleeps between writes holds no
/// Swift concurrency thread (its `usleep`s time real writers precisely, off the pool).
package final class BlockingThread<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)

    package init(_ body: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            let result = Result { try body() }
            self.outcome.withLock { $0 = result }
        }
    }

    package var isFinished: Bool { self.outcome.withLock { $0 != nil } }

    /// Waits for the thread's result, polling every 5 ms without holding a thread.
    package func value() async throws -> Value {
        while true {
            if let result = self.outcome.withLock({ $0 }) { return try result.get() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
