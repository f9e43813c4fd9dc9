import Foundation
import Glibc
import Synchronization

/// Runs blocking work on a thread of its own, so a writer that sleeps between writes holds no
/// Swift concurrency thread.
package final class BlockingThread<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)

    package init(_ body: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            let result = Result { try body() }
            self.outcome.withLock { $0 = result }
        }
    }

    package var isFinished: Bool { self.outcome.withLock { $0 != nil } }

    /// Waits for the thread's result.
    package func join() throws -> Value {
        while true {
            if let result = self.outcome.withLock({ $0 }) { return try result.get() }
            usleep(5_000)
        }
    }
}

