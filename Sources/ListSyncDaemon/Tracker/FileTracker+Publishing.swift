import ListSyncProtocol
import NIOPosix

extension FileTracker {
    /// Makes the saved `ingestion` the tracker's: publishes what changed (and that the state is
    /// saved again, after a storage problem), then appends its changeset to the log. A new
    /// version's publication latency is measured from `changedAt`, the file's last change before
    /// it was announced, when the read had one. A new version's `timeline` is logged at debug level.
    func publish(
        _ ingestion: Ingestion, tracking: inout Tracking, changedAt: ContinuousClock.Instant?, timeline: VersionTimeline, pool: NIOThreadPool
    ) async throws {
        tracking.machine = ingestion.machine
        var publication = ingestion.publication ?? WatchPublication()
        if tracking.machine.storageProblem != nil, let status = tracking.machine.noteStorageProblem(nil) {
            self.logger.notice("the watch's state is saved again")
            publication.status = status
            publication.savesState = true
        }
        if !publication.isEmpty {
            self.log(publication)
            self.feed.publish(publication)
        }
        let published = ContinuousClock.now
        if publication.version != nil, let changedAt {
            self.feed.metrics?.publishDuration.record(changedAt.duration(to: published))
        }
        if let version = publication.version, self.logger.logLevel <= .debug {
            var timeline = timeline
            timeline.published = published
            self.logger.debug("version timeline", metadata: ["seq": "\(version.seq)", "steps": "\(timeline.description)"])
        }
        if publication.version != nil {
            tracking.store = try await self.settleLog(of: tracking.store, pool: pool)
            self.reportDroppedHistory(of: &tracking.store)
        }
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
