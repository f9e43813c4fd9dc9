import ListSyncProtocol

/// The list a sink's table holds, as the sink keeps it in memory.
public struct SinkState {
    var list: SinkList

    /// The version the table holds.
    public var cursor: Cursor { self.list.cursor }

    /// The place in the stream that version came from (a sink fed by a stream); `nil` when the
    /// version did not come from a stream (or its place was not recorded at this cursor).
    public var streamPlace: SinkStreamPlace? { self.list.streamPlace }
}
