import ListSyncProtocol

/// The list a sink's table holds, as the sink keeps it in memory.
public struct SinkState {
    var list: SinkList

    /// The version the table holds.
    public var cursor: Cursor { self.list.cursor }
}
