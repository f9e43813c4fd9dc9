/// When each step of one version's way from the watcher's news to the subscribers happened: the
/// anatomy of its publication latency (issue 19), logged at debug level once it is published
/// (`LISTSYNCD_LOG_LEVEL=debug`).
///
/// Each instant is taken where the step happens — on the thread pool for the read, the parse and
/// the flush — so the gaps between one step's end and the next one's start are the hops between
/// threads and the waits for a core. Reading the clock costs tens of nanoseconds; nothing else
/// is done unless debug logging is on.
struct VersionTimeline: Sendable {
    /// The file's last event before the watcher announced it (``CompletenessCheck/lastChange``);
    /// `nil` for a read no announcement prompted.
    var event: ContinuousClock.Instant?
    /// The tracker took the request to read.
    var taken: ContinuousClock.Instant?
    /// The read began and ended, on its pool thread.
    var readStarted: ContinuousClock.Instant?
    var readEnded: ContinuousClock.Instant?
    /// The parse, diff and encoding of the changeset line began and ended, on their pool thread.
    var ingestStarted: ContinuousClock.Instant?
    var ingested: ContinuousClock.Instant?
    /// The watcher confirmed that nobody wrote the file during the read (seen by the tracker).
    var confirmed: ContinuousClock.Instant?
    /// The save began on its pool thread, its journal record's write began, and the record was
    /// flushed (`fdatasync` returned; for a version written whole, its checkpoint). With
    /// `sync_before_publish = false`, `written` is when the record was written, before the
    /// publication, and `synced` comes after it.
    var saveStarted: ContinuousClock.Instant?
    var journalAppendStarted: ContinuousClock.Instant?
    var written: ContinuousClock.Instant?
    var synced: ContinuousClock.Instant?
    /// The publication was handed to the feed, and the feed returned, having woken the
    /// subscribers' event loops (which may have run, and written, before it returned).
    var publishing: ContinuousClock.Instant?
    var published: ContinuousClock.Instant?

    /// The steps as `name=+milliseconds` since the event (or since the request was taken), in
    /// the order they happened.
    var description: String {
        guard let origin = self.event ?? self.taken else { return "" }
        let steps: [(String, ContinuousClock.Instant?)] = [
            ("taken", self.taken), ("read_started", self.readStarted), ("read_ended", self.readEnded),
            ("ingest_started", self.ingestStarted), ("ingested", self.ingested), ("confirmed", self.confirmed),
            ("save_started", self.saveStarted), ("journal_append_started", self.journalAppendStarted), ("written", self.written),
            ("synced", self.synced),
            ("publishing", self.publishing), ("published", self.published),
        ]
        return steps.compactMap { name, instant in instant.map { (name, $0) } }
            .sorted { $0.1 < $1.1 }
            .map { name, instant in "\(name)=+\(origin.duration(to: instant).loggedMilliseconds)" }
            .joined(separator: " ")
    }
}
