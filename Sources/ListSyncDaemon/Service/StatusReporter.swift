import Synchronization

/// Keeps systemd's `STATUS=` line in step with the watch and subscriber counts and with the
/// watches that need attention, sending it only when it changes.
final class StatusReporter: Sendable {
    private let notifier: SystemdNotifier?
    private let directory: WatchFeeds
    private let connections: ConnectionRegistry
    private let lastSent = Mutex<StatusLine?>(nil)

    init(notifier: SystemdNotifier?, directory: WatchFeeds, connections: ConnectionRegistry) {
        self.notifier = notifier
        self.directory = directory
        self.connections = connections
    }

    /// The counts right now.
    var current: StatusLine {
        let feeds = self.directory.feeds
        let states = feeds.map(\.watchState)
        return StatusLine(
            watches: feeds.count, subscribers: feeds.reduce(0) { $0 + $1.subscriberCount }, connections: self.connections.count,
            invalid: states.filter { $0 == .invalid }.count, missing: states.filter { $0 == .missing }.count,
            writing: states.filter { $0 == .writing }.count, unsaved: feeds.filter { !$0.savesState }.count)
    }

    /// Sends the status line if it changed since the last one sent. Never blocks (see
    /// ``SystemdNotifier``): a line the socket could not take now (its queue full of watchdog
    /// pings nobody read yet) does not count as sent, so the next call — at the latest the next
    /// watchdog ping — sends it again rather than leaving systemd with an old line.
    func report() {
        guard let notifier = self.notifier else { return }
        let line = self.current
        let changed = self.lastSent.withLock { lastSent in
            defer { lastSent = line }
            return lastSent != line
        }
        guard changed else { return }
        do {
            try notifier.notify(.status(line.description))
        } catch {
            // Not sent: forget it, unless a newer line was sent meanwhile.
            self.lastSent.withLock { lastSent in
                if lastSent == line { lastSent = nil }
            }
        }
    }

    /// Records `line` as sent along with another notification (`READY=1`).
    func noteSent(_ line: StatusLine) {
        self.lastSent.withLock { $0 = line }
    }
}
