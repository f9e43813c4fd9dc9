import ListFormats
import ListSyncProtocol
import Logging
import NIOPosix
import Synchronization

/// Follows one watched file: reads every version the watcher announces, turns it into at most one
/// publication (``StateMachine``) and hands that to the watch's ``WatchFeed``.
///
/// Reading, parsing, diffing and encoding block, so they run on a thread pool — never on the
/// watcher's thread or an event loop — one version at a time per tracker. Announcements that
/// arrive meanwhile are coalesced into one more read: a burst of saves costs at most two reads,
/// and the last one sees the final content.
final class FileTracker: Sendable {
    /// Where the tracker publishes.
    let feed: WatchFeed
    /// The watch as configured, and the history a reload asked the next read to start.
    private let configuration: Mutex<(watch: WatchConfiguration, newEpoch: Epoch?)>
    /// "Read the file again"; holds at most one pending request, which is the coalescing.
    private let readRequests: AsyncStream<Void>.Continuation
    private let requests: AsyncStream<Void>
    private let firstRead: Signal
    private let logger: Logger

    /// A tracker for `watch`, publishing to `feed`. Call ``run(pool:)`` to start it.
    init(watch: WatchConfiguration, feed: WatchFeed, logger: Logger) {
        self.feed = feed
        self.configuration = Mutex((watch, nil))
        (self.requests, self.readRequests) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.firstRead = Signal()
        var logger = logger
        logger[metadataKey: "watch"] = "\(watch.name)"
        self.logger = logger
        // The first read needs no announcement: start loading at once.
        self.readRequests.yield()
    }

    /// The watch as currently configured.
    var watch: WatchConfiguration {
        self.configuration.withLock { $0.watch }
    }

    /// Asks for the file to be read again (the watcher announced a change or its absence).
    func fileChanged() {
        self.readRequests.yield()
    }

    /// Applies a new configuration of the watch and reads the file again at once, with the new
    /// options even if the file did not change.
    ///
    /// When the records are identified differently (format, key, section_by) the next valid
    /// version starts a new history, an epoch of its own, and subscribers get a snapshot of it;
    /// otherwise (path, ignore, delimiter, ragged_rows) it is diffed against the last good version
    /// and subscribers get one changeset.
    ///
    /// - Returns: Whether a new epoch starts.
    @discardableResult
    func reconfigure(_ watch: WatchConfiguration) -> Bool {
        let startsEpoch = self.configuration.withLock { configuration in
            let startsEpoch = !watch.fields(differingFrom: configuration.watch).isDisjoint(with: WatchConfiguration.Field.identities)
            if startsEpoch { configuration.newEpoch = Epoch.random() }
            configuration.watch = watch
            return startsEpoch
        }
        self.readRequests.yield()
        return startsEpoch
    }

    /// Ends ``run(pool:)`` after the read in progress, if any.
    func stop() {
        self.readRequests.finish()
    }

    /// Returns once the file has been read for the first time (whatever it held), or the tracker stopped.
    func waitUntilLoaded() async {
        await self.firstRead.wait()
    }

    /// Reads the file whenever asked, until ``stop()``. Blocking work runs on `pool`.
    func run(pool: NIOThreadPool) async {
        var machine = StateMachine(watch: self.feed.name, epoch: self.feed.epoch)
        defer { self.firstRead.fire() }
        for await _ in self.requests {
            let (watch, newEpoch) = self.configuration.withLock { configuration in
                defer { configuration.newEpoch = nil }
                return configuration
            }
            if let newEpoch {
                machine.startEpoch(newEpoch)
            }
            do {
                let step = try await pool.runIfActive { [machine] in
                    var machine = machine
                    let read = Result { () throws(FileReadError) in try FileSnapshot.read(atPath: watch.path) }
                    let publication = machine.ingest(read, options: watch.readOptions)
                    return (machine, publication)
                }
                machine = step.0
                if let publication = step.1 {
                    self.log(publication)
                    self.feed.publish(publication)
                }
            } catch is CancellationError {
                // The daemon is stopping (perhaps because it could not start): whatever made it
                // stop is reported where it happened, not drowned out here.
                return
            } catch {
                self.logger.error("the thread pool refused work; the tracker stops", metadata: ["error": "\(error)"])
                return
            }
            if case .loading = machine.state {} else {
                self.firstRead.fire()
            }
        }
    }

    private func log(_ publication: WatchPublication) {
        if let version = publication.version, publication.changesetLine != nil || version.seq == 0 {
            self.logger.info("new version", metadata: ["seq": "\(version.seq)", "rows": "\(version.rowCount)"])
        }
        if let status = publication.status {
            switch status.state {
            case .ok, .loading, .removed:
                self.logger.info("file is ok")
                for warning in status.warnings {
                    self.logger.warning("\(warning.message)", metadata: ["at": "\(warning.position.map(\.description) ?? "-")"])
                }
            case .invalid, .missing:
                self.logger.warning("file is \(status.state.rawValue)", metadata: ["problem": "\(status.error?.description ?? "")"])
            }
        }
    }
}

extension WatchConfiguration {
    /// How the reader reads this watch's file.
    var readOptions: ReadOptions {
        let format: ListFormat
        switch self.format {
        case .csv, .tsv: format = .csv(delimiter: self.delimiter ?? .comma)
        case .json: format = .json
        case .ndjson: format = .ndjson
        }
        return ReadOptions(format: format, key: self.key, sectionBy: self.sectionBy, ignore: self.ignore, raggedRows: self.raggedRows)
    }
}
