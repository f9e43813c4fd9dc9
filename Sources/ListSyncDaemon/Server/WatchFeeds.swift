import ListSyncProtocol
import Synchronization

/// The watches the server offers, by name, in configuration order; changes on reload.
final class WatchFeeds: Sendable {
    private let offered = Mutex<[WatchFeed]>([])

    /// The feed of the watch called `name`.
    ///
    /// - Complexity: O(*n*) in the number of watches.
    func feed(named name: String) -> WatchFeed? {
        self.offered.withLock { feeds in feeds.first { $0.name == name } }
    }

    /// Every watch as `list` describes it.
    var summaries: [WatchSummary] {
        self.offered.withLock { $0 }.map(\.summary)
    }

    /// The offered watches, in configuration order.
    var feeds: [WatchFeed] {
        self.offered.withLock { $0 }
    }

    /// The names of the watches still `loading` (not read once yet), in configuration order:
    /// while there is one, the daemon is not ready (`/ready` answers 503).
    var loadingWatches: [String] {
        self.feeds.filter { $0.watchState == .loading }.map(\.name)
    }

    /// The number of watches.
    var count: Int {
        self.offered.withLock { $0.count }
    }

    /// Replaces the offered watches (start or reload).
    func replace(with feeds: [WatchFeed]) {
        self.offered.withLock { $0 = feeds }
    }
}
