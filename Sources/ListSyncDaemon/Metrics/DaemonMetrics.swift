import Prometheus
import Synchronization

/// The daemon's Prometheus metrics: one `PrometheusCollectorRegistry` per daemon instance (not
/// the process-wide swift-metrics bootstrap, so that several daemons in one process — tests —
/// keep apart), every family with its `# HELP` (``MetricFamilies``).
///
/// Counters and histograms are recorded where their events happen (the feeds, the trackers, the
/// connections, the watcher); the gauges that follow a value kept elsewhere (the client buffers,
/// the state directory, the kept history) are sampled when the exposition is asked for
/// (``exposition(keptChangesets:clientBufferBytes:)``). The number of series depends on the number of
/// watches, never on the number of subscribers or connections.
final class DaemonMetrics: Sendable {
    /// Where every series is registered; emits the text format.
    let registry = PrometheusCollectorRegistry()
    private let disconnects: [DisconnectReason: Counter]
    private let clientBufferBytes: Gauge
    private let clientBufferBudgetBytes: Gauge
    private let inotifyOverflows: Counter
    private let watches = Mutex<[String: WatchMetrics]>([:])

    /// Metrics for a daemon whose client buffers may hold `clientBufferBudget` bytes.
    init(clientBufferBudget: Int) {
        let registry = self.registry
        self.disconnects = Dictionary(
            uniqueKeysWithValues: DisconnectReason.allCases.map {
                ($0, registry.makeCounter(descriptor: MetricFamilies.disconnects, labels: [("reason", $0.rawValue)]))
            })
        self.clientBufferBytes = registry.makeGauge(descriptor: MetricFamilies.clientBufferBytes)
        self.clientBufferBudgetBytes = registry.makeGauge(descriptor: MetricFamilies.clientBufferBudgetBytes)
        self.inotifyOverflows = registry.makeCounter(descriptor: MetricFamilies.inotifyOverflows)
        self.clientBufferBudgetBytes.set(to: Double(clientBufferBudget))
    }

    /// New series for the watch called `name`, which starts now, whose state lives in
    /// `stateDirectory` (`nil`: none on disk). Series left by an earlier watch of that name are
    /// dropped first: their counts, and the state directory they measured, are not this watch's.
    func watch(named name: String, stateDirectory: String?) -> WatchMetrics {
        self.watches.withLock { watches in
            // Unregistered before the new series are made: the registry would hand the old ones back.
            watches.removeValue(forKey: name)?.unregister(from: self.registry)
            let made = WatchMetrics(name: name, stateDirectory: stateDirectory, registry: self.registry)
            watches[name] = made
            return made
        }
    }

    /// Drops the series of the watch called `name`: it left the configuration.
    func removeWatch(named name: String) {
        guard let removed = self.watches.withLock({ $0.removeValue(forKey: name) }) else { return }
        removed.unregister(from: self.registry)
    }

    /// A connection ended for `reason`.
    func noteDisconnect(_ reason: DisconnectReason) {
        self.disconnects[reason]?.increment()
    }

    /// Inotify events were lost and every watched file is checked again.
    func noteInotifyOverflow() {
        self.inotifyOverflows.increment()
    }

    /// The exposition in the Prometheus text format (version 0.0.4), after sampling the gauges
    /// that follow values kept elsewhere: `clientBufferBytes`, and for each watch of
    /// `keptChangesets` (its series, and the changesets its feed keeps) its kept history and the
    /// size of its state directory. The caller samples the feeds, so that this folder depends
    /// on none of the daemon's others.
    ///
    /// - Complexity: O(*w*) `stat`s in the number of watches, plus the size of the exposition.
    func exposition(keptChangesets: [(watch: WatchMetrics, count: Int)], clientBufferBytes: Int) -> [UInt8] {
        self.clientBufferBytes.set(to: Double(clientBufferBytes))
        for (metrics, count) in keptChangesets {
            metrics.historyChangesets.set(to: Double(count))
            if let directory = metrics.stateDirectory {
                metrics.stateBytes.set(to: Double(StateDirectorySize.bytes(in: directory)))
            }
        }
        return self.registry.emitToBuffer()
    }

    /// The media type of ``exposition(keptChangesets:clientBufferBytes:)``.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}
