import FileWatching

extension FileTracker {
    /// What ``FileTracker/run(pool:)`` carries from one read to the next: the machine at the
    /// last durable version and the store that made it durable.
    struct Tracking: Sendable {
        /// What the tracker knows about its file.
        var machine: StateMachine
        /// Where its versions are saved before they are published.
        var store: WatchStateStore
        /// The file's identity at the last read that was used, whole (`nil` after a read of
        /// complete lines only, a failed or missing read): a file announced again with the same
        /// identity is first compared with the last good version's bytes rather than read into
        /// a new buffer (``FileSnapshot/unchanged(atPath:identity:bytes:)``).
        var lastReadIdentity: FileIdentity? = nil
    }
}
