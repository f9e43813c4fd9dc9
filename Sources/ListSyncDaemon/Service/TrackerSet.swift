import FileWatching
import Synchronization

/// The daemon's trackers, in configuration order, and the routing of watcher events to them by
/// path (two watches may follow the same file with different settings).
final class TrackerSet: Sendable {
    private struct Entry {
        var tracker: FileTracker
        /// The path as the watcher normalised it, which its events carry.
        var watchedPath: String
    }

    private let entries = Mutex<[Entry]>([])

    /// Adds a tracker whose file the watcher watches under `watchedPath`.
    func add(_ tracker: FileTracker, watchedPath: String) {
        self.entries.withLock { $0.append(Entry(tracker: tracker, watchedPath: watchedPath)) }
    }

    /// Removes and returns the tracker of the watch called `name`.
    func remove(named name: String) -> (tracker: FileTracker, watchedPath: String)? {
        self.entries.withLock { entries in
            guard let index = entries.firstIndex(where: { $0.tracker.feed.name == name }) else { return nil }
            let entry = entries.remove(at: index)
            return (entry.tracker, entry.watchedPath)
        }
    }

    /// The tracker of the watch called `name` and its watched path.
    func tracker(named name: String) -> (tracker: FileTracker, watchedPath: String)? {
        self.entries.withLock { entries in
            entries.first { $0.tracker.feed.name == name }.map { ($0.tracker, $0.watchedPath) }
        }
    }

    /// Records that the watch called `name` now follows `watchedPath`.
    func move(named name: String, to watchedPath: String) {
        self.entries.withLock { entries in
            if let index = entries.firstIndex(where: { $0.tracker.feed.name == name }) {
                entries[index].watchedPath = watchedPath
            }
        }
    }

    /// Puts the trackers in the order of `names` (the configuration's).
    func reorder(_ names: [String]) {
        self.entries.withLock { entries in
            let position = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            entries.sort { (position[$0.tracker.feed.name] ?? .max) < (position[$1.tracker.feed.name] ?? .max) }
        }
    }

    /// Every tracker, in configuration order.
    var all: [FileTracker] {
        self.entries.withLock { $0.map(\.tracker) }
    }

    /// Hands the watcher's `event` to every tracker of the file it is about.
    func fileEvent(_ event: FileWatchEvent) {
        let trackers = self.entries.withLock { entries in entries.filter { $0.watchedPath == event.path }.map(\.tracker) }
        for tracker in trackers {
            tracker.fileEvent(event)
        }
    }
}
