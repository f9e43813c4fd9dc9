/// Where in a JetStream stream a table sink fed by the stream (`sink sqlite|postgres --from
/// nats://…`) is: the stream and the sequence of the last message it committed. Written in the
/// transaction of each commit beside the cursor (`listsync_stream_places`), so that a sink
/// killed at any moment reads the stream on from the message after it.
public struct SinkStreamPlace: Sendable, Hashable {
    /// The stream's name.
    public var stream: String
    /// The stream sequence of the message that brought the table to its cursor.
    public var sequence: UInt64

    /// A place.
    public init(stream: String, sequence: UInt64) {
        self.stream = stream
        self.sequence = sequence
    }
}
