import Prometheus

extension WatchMetrics {
    /// The series of one watch, made through it so that each is listed once: every series made
    /// is unregistered with the others.
    struct Registrations: Sendable {
        let registry: PrometheusCollectorRegistry
        private var counters: [Counter] = []
        private var gauges: [Gauge] = []
        private var histograms: [DurationHistogram] = []

        init(registry: PrometheusCollectorRegistry) {
            self.registry = registry
        }

        mutating func counter(descriptor: MetricNameDescriptor, labels: [(String, String)]) -> Counter {
            let made = self.registry.makeCounter(descriptor: descriptor, labels: labels)
            self.counters.append(made)
            return made
        }

        mutating func gauge(descriptor: MetricNameDescriptor, labels: [(String, String)]) -> Gauge {
            let made = self.registry.makeGauge(descriptor: descriptor, labels: labels)
            self.gauges.append(made)
            return made
        }

        mutating func histogram(descriptor: MetricNameDescriptor, labels: [(String, String)], buckets: [Duration]) -> DurationHistogram {
            let made = self.registry.makeDurationHistogram(descriptor: descriptor, labels: labels, buckets: buckets)
            self.histograms.append(made)
            return made
        }

        /// Removes every series made from `registry`.
        func unregister(from registry: PrometheusCollectorRegistry) {
            self.counters.forEach(registry.unregisterCounter)
            self.gauges.forEach(registry.unregisterGauge)
            self.histograms.forEach(registry.unregisterDurationHistogram)
        }
    }
}
