import ListSyncProtocol

/// How a ``ListSyncClient`` reaches the daemon and how it behaves when the connection fails: a
/// value passed at `init`; nothing in the client reads the environment.
public struct ClientConfiguration: Sendable, Hashable {
    /// The path of the daemon's Unix socket; see ``defaultSocketPath(environment:userID:)``.
    public var socketPath: String
    /// How the client names itself in its `hello` (the daemon logs it).
    public var clientName: String
    /// When and how often to reconnect after a connection fails or is lost.
    public var reconnect: ReconnectPolicy
    /// How long a connection may stay silent while the client waits for a message before it is
    /// considered dead and replaced; the daemon sends a heartbeat every 15 s by default. `nil`:
    /// never.
    public var idleTimeout: Duration?
    /// The longest line accepted from the daemon. Snapshots are cut into chunks of about
    /// 256 KiB, so only a single huge record comes near it.
    public var maximumLineLength: Int
    /// How many resubscriptions in a row, without a snapshot or changeset that verifies in
    /// between, before the subscription gives up with ``ClientError/inconsistentData(_:)``: a
    /// daemon whose data never verifies is not retried forever.
    public var maximumConsecutiveResyncs: Int
    /// How snapshots reach the consumer: assembled (the default), or chunk by chunk as they
    /// arrive (``SnapshotDelivery``).
    public var snapshotDelivery: SnapshotDelivery
    /// The protocol versions offered in `hello`; the daemon picks the highest it speaks, and
    /// the mirror checks digests as that version defines them. Every version by default; the
    /// NATS sink offers `[1]`, so that the lines it publishes keep the version 1 digest.
    public var protocols: [Int] = ProtocolVersion.supported

    /// A configuration for the socket at `socketPath`; the other settings have defaults suited to
    /// a long-running subscriber.
    public init(
        socketPath: String,
        clientName: String = "ListSyncClient",
        reconnect: ReconnectPolicy = ReconnectPolicy(),
        idleTimeout: Duration? = .seconds(60),
        maximumLineLength: Int = 256 << 20,
        maximumConsecutiveResyncs: Int = 5,
        snapshotDelivery: SnapshotDelivery = .assembled
    ) {
        self.socketPath = socketPath
        self.clientName = clientName
        self.reconnect = reconnect
        self.idleTimeout = idleTimeout
        self.maximumLineLength = maximumLineLength
        self.maximumConsecutiveResyncs = maximumConsecutiveResyncs
        self.snapshotDelivery = snapshotDelivery
    }
}
