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
    let publishDuration: DurationHistogram
    let readDuration: DurationHistogram
    let diffDuration: DurationHistogram
    let stateSyncDuration: DurationHistogram

    /// The states `listsync_watch_state` has a series for: every one a watch can be in.
    static let trackedStates = WatchState.allCases.filter { $0 != .removed }
    /// The `op` labels of `listsync_watch_records_changed_total`.
    static let operations = ["inserted", "deleted", "updated", "moved"]

    /// Registers the watch's series in `registry`, a `loading` watch with nothing published.
    init(name: String, stateDirectory: String?, registry: PrometheusCollectorRegistry) {
        self.name = name
        self.stateDirectory = stateDirectory
        let watch = [("watch", name)]
        self.versions = registry.makeCounter(descriptor: MetricFamilies.versions, labels: watch)
        self.recordsChanged = Self.operations.map {
            registry.makeCounter(descriptor: MetricFamilies.recordsChanged, labels: watch + [("op", $0)])
        }
        self.invalidVersions = registry.makeCounter(
            descriptor: MetricFamilies.invalidVersions, labels: watch)
        self.states = Self.trackedStates.map {
            registry.makeGauge(descriptor: MetricFamilies.state, labels: watch + [("state", $0.rawValue)])
        }
        self.rows = registry.makeGauge(descriptor: MetricFamilies.rows, labels: watch)
        self.cursorSeq = registry.makeGauge(descriptor: MetricFamilies.cursorSeq, labels: watch)
        self.subscribers = registry.makeGauge(descriptor: MetricFamilies.subscribers, labels: watch)
        self.stateBytes = registry.makeGauge(descriptor: MetricFamilies.stateBytes, labels: watch)
        self.stateSaveFailing = registry.makeGauge(descriptor: MetricFamilies.stateSaveFailing, labels: watch)
        self.historyChangesets = registry.makeGauge(descriptor: MetricFamilies.historyChangesets, labels: watch)
        let buckets = MetricFamilies.durationBuckets
        self.publishDuration = registry.makeDurationHistogram(
            descriptor: MetricFamilies.publishDuration, labels: watch, buckets: buckets)
        self.readDuration = registry.makeDurationHistogram(
            descriptor: MetricFamilies.readDuration, labels: watch, buckets: buckets)
        self.diffDuration = registry.makeDurationHistogram(
            descriptor: MetricFamilies.diffDuration, labels: watch, buckets: buckets)
        self.stateSyncDuration = registry.makeDurationHistogram(
            descriptor: MetricFamilies.stateSyncDuration, labels: watch, buckets: buckets)
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
        for counter in [self.versions, self.invalidVersions] + self.recordsChanged {
            registry.unregisterCounter(counter)
        }
        for gauge in [self.rows, self.cursorSeq, self.subscribers, self.stateBytes, self.stateSaveFailing, self.historyChangesets] + self.states {
            registry.unregisterGauge(gauge)
        }
        for histogram in [self.publishDuration, self.readDuration, self.diffDuration, self.stateSyncDuration] {
            registry.unregisterDurationHistogram(histogram)
        }
    }
}
