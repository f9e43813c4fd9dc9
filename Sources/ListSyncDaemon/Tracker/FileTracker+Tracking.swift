extension FileTracker {
    /// What ``FileTracker/run(pool:)`` carries from one read to the next: the machine at the
    /// last durable version and the store that made it durable.
    struct Tracking: Sendable {
        /// What the tracker knows about its file.
        var machine: StateMachine
        /// Where its versions are saved before they are published.
        var store: WatchStateStore
    }
}
