/// The `# HELP` text of every metric family, in one place: a family's help must be the same
/// wherever its series are made (swift-prometheus checks), and docs/man/listsyncd.toml.5 lists them.
enum MetricHelp {
    static let versions = "Versions of the watched file published (each a new cursor seq)."
    static let recordsChanged = "Records the published changesets inserted, deleted, updated or moved (op)."
    static let invalidVersions = "Reads of the watched file whose content did not parse or could not be read (the last good version stayed live)."
    static let state = "1 for the watch's current state (loading, ok, writing, invalid, missing), 0 for the others."
    static let rows = "Records in the watch's live version."
    static let cursorSeq = "The seq of the watch's live version."
    static let subscribers = "Connections subscribed to the watch (or waiting for its restore to subscribe)."
    static let stateBytes = "Bytes of the watch's files in the state directory (checkpoint slots and changeset log)."
    static let stateSaveFailing = "1 while the watch's state cannot be saved (a full disk...): new versions are not published until it can."
    static let historyChangesets = "Changesets kept for resuming (in memory or in the log on disk)."
    static let publishDuration = "From the file event a version was read for to its publication, settling included."
    static let readDuration = "Reading the watched file (confirmed complete)."
    static let diffDuration = "Parsing, diffing and encoding a version."
    static let stateSyncDuration = "Making a version durable before it is published (checkpoint slot written and synced)."
    static let disconnects = "Connections ended, by reason: a goodbye reason (shutdown, slow_consumer), closed_by_client or error."
    static let clientBufferBytes = "Bytes the client buffers hold now (unwritten replies, unfinished request lines, snapshots being sent)."
    static let clientBufferBudgetBytes = "The client-buffer budget (client_buffer_budget_mib) in bytes."
    static let inotifyOverflows = "Times inotify events were lost (the kernel queue or the watcher's overflowed) and every file was checked again."

    /// The buckets of the duration histograms: 1 ms to 10 s.
    static let durationBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]
}
