/// The `STATUS=` line systemd shows for the daemon: what it serves and to how many.
struct StatusLine: Hashable, Sendable, CustomStringConvertible {
    var watches: Int
    var subscribers: Int
    var connections: Int

    /// E.g. `serving 3 watches to 1 subscriber on 2 connections`.
    var description: String {
        func counted(_ count: Int, _ singular: String, _ plural: String) -> String {
            "\(count) \(count == 1 ? singular : plural)"
        }
        return "serving \(counted(self.watches, "watch", "watches")) to "
            + "\(counted(self.subscribers, "subscriber", "subscribers")) on "
            + "\(counted(self.connections, "connection", "connections"))"
    }
}
