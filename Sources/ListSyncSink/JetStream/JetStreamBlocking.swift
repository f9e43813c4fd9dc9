import NIOPosix

/// nats.c's calls block their thread (up to their timeout): they run on NIO's thread pool, never
/// on a thread of Swift concurrency's small cooperative pool.
enum JetStreamBlocking {
    /// The result of `body`, run on `NIOThreadPool.singleton`.
    static func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}
