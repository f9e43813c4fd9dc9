/// How the socket server behaves: who may connect, and its pacing (where it listens is a
/// ``SocketServer/Listener``).
///
/// Built by the daemon from the ``DaemonConfiguration``; the flow-control values have defaults
/// that tests shrink to provoke slow consumers quickly.
struct ServerConfiguration: Sendable {
    /// Who may connect.
    var access: PeerAccess
    /// How often every open connection receives a heartbeat.
    var heartbeatInterval: Duration
    /// The name and version in the server `hello`.
    var serverName: String = "listsyncd 0.1"
    /// Outbound bytes queued on a connection above which it counts as slow (it stops receiving
    /// until it drains below ``writeBufferLowWaterMark``).
    var writeBufferHighWaterMark = 1 << 20
    /// See ``writeBufferHighWaterMark``.
    var writeBufferLowWaterMark = 256 << 10
    /// How long a connection may stay slow before it is sent `goodbye` `slow_consumer` and closed.
    var slowConsumerTimeout: Duration = .seconds(30)
    /// The most bytes the server buffers for clients: unfinished request lines, replies not yet
    /// written and snapshots being sent (each once); see ``ClientBufferBudget``.
    var clientBufferBudget = DaemonConfiguration.Defaults.clientBufferBudget
    /// How long a request line may stay unfinished before the connection is closed with
    /// `line_timeout`.
    var unfinishedLineTimeout = DaemonConfiguration.Defaults.unfinishedLineTimeout
    /// How long a `goodbye` may take to leave before the connection is closed anyway.
    var goodbyeGracePeriod: Duration = .seconds(1)
    /// The size at which snapshot chunks are cut.
    var snapshotChunkSize = 256 << 10
    /// Bytes one connection may write in one turn of its event loop before yielding to others.
    var writeBudgetPerTurn = 1 << 20
}
