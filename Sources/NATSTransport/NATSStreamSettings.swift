/// A JetStream stream as a sink wants it: its name, subjects and replication. It has no
/// server-side byte or age limit: those could drop the latest snapshot, so a sink bounds its own
/// subject (`JetStreamRetention`).
public struct NATSStreamSettings: Sendable, Hashable {
    /// The stream's name.
    public var name: String
    /// The subjects it stores.
    public var subjects: [String]
    /// How many servers of the cluster keep a copy (1, 3 or 5).
    public var replicas: Int
    /// How long the server remembers a `Nats-Msg-Id` to drop a repeated publish, in seconds.
    public var duplicateWindowSeconds: Int64

    /// Settings for the stream `name` over `subjects`.
    public init(
        name: String, subjects: [String], replicas: Int = 1, duplicateWindowSeconds: Int64 = 120
    ) {
        self.name = name
        self.subjects = subjects
        self.replicas = replicas
        self.duplicateWindowSeconds = duplicateWindowSeconds
    }
}
