/// The `STATUS=` line systemd shows for the daemon: what it serves and to how many, then what
/// needs attention — watches whose file is invalid, missing or held by a writer, and watches
/// whose state cannot be saved.
struct StatusLine: Hashable, Sendable, CustomStringConvertible {
    var watches: Int
    var subscribers: Int
    var connections: Int
    /// Watches whose file does not parse (the last good version stays live).
    var invalid = 0
    /// Watches whose file is gone.
    var missing = 0
    /// Watches whose file a writer holds open.
    var writing = 0
    /// Watches whose state cannot be saved (a full disk…): new versions are not published.
    var unsaved = 0

    /// E.g. `serving 3 watches to 1 subscriber on 2 connections`, then, when something needs
    /// attention, `; attention: 1 invalid, 1 missing, state of 1 watch cannot be saved`.
    var description: String {
        func counted(_ count: Int, _ singular: String, _ plural: String) -> String {
            "\(count) \(count == 1 ? singular : plural)"
        }
        let serving = "serving \(counted(self.watches, "watch", "watches")) to "
            + "\(counted(self.subscribers, "subscriber", "subscribers")) on "
            + "\(counted(self.connections, "connection", "connections"))"
        var attention = [(self.invalid, "invalid"), (self.missing, "missing"), (self.writing, "writing")].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        if self.unsaved > 0 {
            attention.append("state of \(counted(self.unsaved, "watch", "watches")) cannot be saved")
        }
        return attention.isEmpty ? serving : serving + "; attention: " + attention.joined(separator: ", ")
    }
}
