/// A JetStream stream as a sink wants it: its name, subjects, replication and limits.
public struct NATSStreamSettings: Sendable, Hashable {
    /// The stream's name.
    public var name: String
    /// The subjects it stores.
    public var subjects: [String]
    /// How many servers of the cluster keep a copy (1, 3 or 5).
    public var replicas: Int
    /// The most bytes the stream keeps (oldest messages are dropped first); `nil`: no limit.
    public var maximumBytes: Int64?
    /// How long a message is kept, in seconds; `nil`: no limit.
    public var maximumAgeSeconds: Int64?
    /// How long the server remembers a `Nats-Msg-Id` to drop a repeated publish, in seconds.
    public var duplicateWindowSeconds: Int64

    /// Settings for the stream `name` over `subjects`.
    public init(
        name: String, subjects: [String], replicas: Int = 1, maximumBytes: Int64? = nil, maximumAgeSeconds: Int64? = nil,
        duplicateWindowSeconds: Int64 = 120
    ) {
        self.name = name
        self.subjects = subjects
        self.replicas = replicas
        self.maximumBytes = maximumBytes
        self.maximumAgeSeconds = maximumAgeSeconds
        self.duplicateWindowSeconds = duplicateWindowSeconds
    }
}
