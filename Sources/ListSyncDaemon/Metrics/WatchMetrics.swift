import ListSyncProtocol
import Prometheus

/// The series of one watch, each labelled `watch="NAME"`, recorded where their events happen:
/// the feed publishes (versions, records changed, state, rows, cursor), subscribers come and go,
/// the tracker times its steps. Made and dropped by ``DaemonMetrics``.
final class WatchMetrics: Sendable {
    /// The watch's name, the `watch` label.
    let name: String
    /// The watch's directory in the state directory, measured for `listsync_state_bytes`; `nil`
    /// when the daemon keeps no state on disk.
    let stateDirectory: String?
    let versions: Counter
    let recordsChanged: [Counter]
    let invalidVersions: Counter
    /// One gauge per state but `removed`, in ``WatchMetrics/states`` order.
    let states: [Gauge]
    let rows: Gauge
    let cursorSeq: Gauge
    let subscribers: Gauge
    let stateBytes: Gauge
    let stateSaveFailing: Gauge
    let historyChangesets: Gauge
    /// The bytes the tracker keeps for its next version (``ListBufferPool``), set by the pool itself.
    let spareMemoryBytes: Gauge
    let publishDuration: DurationHistogram
    let readDuration: DurationHistogram
    let diffDuration: DurationHistogram
    let stateSyncDuration: DurationHistogram
    /// Every series above, as it was made: what ``unregister(from:)`` removes.
    private let registrations: Registrations

    /// The states `listsync_watch_state` has a series for: every one a watch can be in.
    static let trackedStates = WatchState.allCases.filter { $0 != .removed }
    /// The `op` labels of `listsync_watch_records_changed_total`.
    static let operations = ["inserted", "deleted", "updated", "moved"]

    /// Registers the watch's series in `registry`, a `loading` watch with nothing published.
    init(name: String, stateDirectory: String?, registry: PrometheusCollectorRegistry) {
        self.name = name
        self.stateDirectory = stateDirectory
        let watch = [("watch", name)]
        var series = Registrations(registry: registry)
        self.versions = series.counter(descriptor: MetricFamilies.versions, labels: watch)
        self.recordsChanged = Self.operations.map {
            series.counter(descriptor: MetricFamilies.recordsChanged, labels: watch + [("op", $0)])
        }
        self.invalidVersions = series.counter(
            descriptor: MetricFamilies.invalidVersions, labels: watch)
        self.states = Self.trackedStates.map {
            series.gauge(descriptor: MetricFamilies.state, labels: watch + [("state", $0.rawValue)])
        }
        self.rows = series.gauge(descriptor: MetricFamilies.rows, labels: watch)
        self.cursorSeq = series.gauge(descriptor: MetricFamilies.cursorSeq, labels: watch)
        self.subscribers = series.gauge(descriptor: MetricFamilies.subscribers, labels: watch)
        self.stateBytes = series.gauge(descriptor: MetricFamilies.stateBytes, labels: watch)
        self.stateSaveFailing = series.gauge(descriptor: MetricFamilies.stateSaveFailing, labels: watch)
        self.historyChangesets = series.gauge(descriptor: MetricFamilies.historyChangesets, labels: watch)
        self.spareMemoryBytes = series.gauge(descriptor: MetricFamilies.spareMemory, labels: watch)
        let buckets = MetricFamilies.durationBuckets
        self.publishDuration = series.histogram(
            descriptor: MetricFamilies.publishDuration, labels: watch, buckets: buckets)
        self.readDuration = series.histogram(
            descriptor: MetricFamilies.readDuration, labels: watch, buckets: buckets)
        self.diffDuration = series.histogram(
            descriptor: MetricFamilies.diffDuration, labels: watch, buckets: buckets)
        self.stateSyncDuration = series.histogram(
            descriptor: MetricFamilies.stateSyncDuration, labels: watch, buckets: buckets)
        self.registrations = series
        self.noteState(.loading)
    }

    /// A version was published: `seq`, `rows` records, `changes` since the one before.
    func notePublished(seq: UInt64, rows: Int, changes: RecordChanges?) {
        self.versions.increment()
        self.noteVersion(seq: seq, rows: rows)
        guard let changes else { return }
        for (counter, count) in zip(self.recordsChanged, [changes.inserted, changes.deleted, changes.updated, changes.moved]) where count > 0 {
            counter.increment(by: Int64(count))
        }
    }

    /// The live version is `seq` with `rows` records (published, or restored after a restart).
    func noteVersion(seq: UInt64, rows: Int) {
        self.cursorSeq.set(to: Double(seq))
        self.rows.set(to: Double(rows))
    }

    /// The watch is now in `state`: its series says 1, the others 0.
    func noteState(_ state: WatchState) {
        for (gauge, tracked) in zip(self.states, Self.trackedStates) {
            gauge.set(to: tracked == state ? 1.0 : 0.0)
        }
    }

    /// Removes every series of the watch from `registry`: it left the configuration.
    func unregister(from registry: PrometheusCollectorRegistry) {
        self.registrations.unregister(from: registry)
    }
}
