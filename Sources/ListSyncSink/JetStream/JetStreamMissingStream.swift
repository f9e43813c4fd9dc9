/// A follower was asked to read a stream that does not exist on the servers: not an empty
/// stream (which would mirror an empty list), but a wrong `--stream`, the wrong servers, or a
/// sink that never ran.
public struct JetStreamMissingStream: Error, Sendable, CustomStringConvertible {
    /// The stream asked for.
    public var stream: String
    /// The servers asked.
    public var servers: [String]

    public var description: String {
        "there is no stream \(self.stream) on \(self.servers.joined(separator: ",")): start `listsync sink nats` for the watch, or give the stream's name with --stream"
    }
}
