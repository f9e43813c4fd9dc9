extension Duration {
    /// The duration in milliseconds, to the microsecond (`12.345`), as the daemon's log lines
    /// give step times (``VersionTimeline``, a subscriber's wake): usable from every folder, as
    /// the metrics are.
    var loggedMilliseconds: String {
        let microseconds = self.components.seconds * 1_000_000 + self.components.attoseconds / 1_000_000_000_000
        let sign = microseconds < 0 ? "-" : ""
        let magnitude = abs(microseconds)
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
