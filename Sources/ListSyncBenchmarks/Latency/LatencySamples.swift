/// Percentiles of durations (nearest rank).
struct LatencySamples {
    private let sorted: [Duration]

    init(_ samples: [Duration]) {
        self.sorted = samples.sorted()
    }

    func percentile(_ fraction: Double) -> Duration {
        guard !self.sorted.isEmpty else { return .zero }
        let rank = Int((fraction * Double(self.sorted.count)).rounded(.up)) - 1
        return self.sorted[Swift.min(Swift.max(rank, 0), self.sorted.count - 1)]
    }

    var p50: Duration { self.percentile(0.5) }
    var p99: Duration { self.percentile(0.99) }
    var max: Duration { self.sorted.last ?? .zero }
}
