import ListSyncProtocol
import NIOPosix

extension FileTracker {
    /// What a saved ingestion makes the tracker's: its machine — with the storage problem, if
    /// there was one, resolved — and what it publishes (with the status that says the state is
    /// saved again).
    struct Release: Sendable {
        var machine: StateMachine
        var publication: WatchPublication
        /// Whether the state could not be saved before this save.
        var savesStateAgain = false

        init(_ ingestion: Ingestion) {
            self.machine = ingestion.machine
            self.publication = ingestion.publication ?? WatchPublication()
            if self.machine.storageProblem != nil, let status = self.machine.noteStorageProblem(nil) {
                self.publication.status = status
                self.publication.savesState = true
                self.savesStateAgain = true
            }
        }
    }

    /// Makes the published `release` the tracker's, then appends its changeset to the log. A
    /// new version's publication latency is measured from `changedAt`, the file's last change
    /// before it was announced, when the read had one, to `published`; its `timeline` is logged
    /// at debug level.
    func finishPublishing(
        _ release: Release, published: ContinuousClock.Instant?, tracking: inout Tracking, changedAt: ContinuousClock.Instant?,
        timeline: VersionTimeline, pool: NIOThreadPool
    ) async throws {
        tracking.machine = release.machine
        guard let version = release.publication.version else { return }
        let published = published ?? .now
        if let changedAt {
            self.feed.metrics?.publishDuration.record(changedAt.duration(to: published))
        }
        if self.logger.logLevel <= .debug {
            var timeline = timeline
            timeline.published = published
            self.logger.debug("version timeline", metadata: ["seq": "\(version.seq)", "steps": "\(timeline.description)"])
        }
        tracking.store = try await self.settleLog(of: tracking.store, pool: pool)
        self.reportDroppedHistory(of: &tracking.store)
    }

    /// Publishes the `writing` status, since `since`, if it is news; nothing is read.
    func noteWriting(since: ContinuousClock.Instant, machine: inout StateMachine) {
        if let status = machine.noteWriting(since: WallClock.unixMilliseconds(at: since)) {
            let publication = WatchPublication(status: status)
            self.log(publication)
            self.feed.publish(publication)
        }
    }

    /// Logs what `publication` tells: a new version, the file's state and its warnings.
    func log(_ publication: WatchPublication) {
        if let version = publication.version, publication.changesetLine != nil || version.seq == 0 {
            self.logger.info("new version", metadata: ["seq": "\(version.seq)", "rows": "\(version.rowCount)", "cursor": "\(version.cursor)"])
        }
        if let status = publication.status {
            switch status.state {
            case .ok, .loading, .removed:
                self.logger.info("file is ok")
                for warning in status.warnings {
                    self.logger.warning("\(warning.message)", metadata: ["at": "\(warning.position.map(\.description) ?? "-")"])
                }
            case .writing:
                self.logger.info("a writer holds the file open: the last version stays live until it closes the file")
            case .invalid, .missing:
                self.logger.warning(
                    "file is \(status.state.rawValue)", metadata: ["problem": "\(status.error?.description ?? "")", "path": "\(self.watch.path)"])
            }
        }
    }
}
