import ListSyncClient

/// Where a table sink's snapshots and changesets come from.
public enum SinkSource {
    /// The daemon's socket: a subscription, resumed from the table's cursor.
    case daemon(ListSyncClient)
    /// The watch's JetStream stream (`--from nats://…`), with the daemon stopped or on another
    /// host: read on from the stream sequence the table's place records (else from the stream's
    /// start, passing over what the table's cursor already has), every line checked as over the
    /// socket.
    case stream(JetStreamFollower)
}
