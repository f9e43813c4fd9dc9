/// The server's answer to `hello`: the chosen version, who it is and what it serves.
public struct ServerHello: Hashable, Sendable {
    /// The protocol version both sides speak from now on.
    public var protocolVersion: Int
    /// The server's name and version, e.g. `listsyncd 0.1`.
    public var server: String
    /// The server's history epoch: cursors carry it.
    public var instance: Epoch
    /// The watches, as `list` returns them.
    public var watches: [WatchSummary]

    /// A hello.
    public init(protocolVersion: Int, server: String, instance: Epoch, watches: [WatchSummary]) {
        self.protocolVersion = protocolVersion
        self.server = server
        self.instance = instance
        self.watches = watches
    }
}
