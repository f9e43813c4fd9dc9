import NATSTransport
import NIOPosix

/// nats.c's calls block their thread (up to their timeout): they run on NIO's thread pool, never
/// on a thread of Swift concurrency's small cooperative pool.
public enum JetStreamBlocking {
    /// The result of `body`, run on `NIOThreadPool.singleton`.
    public static func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    /// A connection made with `settings`, on the thread pool: connecting waits for each server
    /// in turn (up to 2 s each).
    public static func connect(_ settings: NATSConnection.Settings) async throws -> NATSConnection {
        try await Self.run { try NATSConnection(settings) }
    }
}
