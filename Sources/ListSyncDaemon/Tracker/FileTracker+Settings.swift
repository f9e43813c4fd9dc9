import ListSyncProtocol

extension FileTracker {
    /// What a reload can change while the tracker runs, taken afresh for each read.
    struct Settings: Sendable {
        /// The watch as configured.
        var watch: WatchConfiguration
        /// The history a reload asked the next read to start (records are identified
        /// differently), taken by that read.
        var newEpoch: Epoch?
        /// How many changesets the state keeps.
        var historyLength: Int
        /// How many bytes of changesets the state keeps.
        var historyMaxBytes: Int
        /// The most time the storage for the next version is kept after a read
        /// (`spare_memory_max_idle_ms`, ``SpareMemoryRelease``).
        var spareMemoryMaxIdle: Duration
    }
}
