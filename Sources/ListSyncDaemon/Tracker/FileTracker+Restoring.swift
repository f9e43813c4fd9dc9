import ListSyncProtocol
import NIOPosix

extension FileTracker {
    /// What reading the watch's state back left: the store, what it restored, and the damaged
    /// files it set aside.
    private struct StateReadBack: Sendable {
        var store: WatchStateStore
        var restoration: WatchStateStore.Restoration
        var setAside: [DamagedStateFile]
        /// The version current when a version 1 client last subscribed (``Version1ClientMark``).
        var version1ClientAt: Cursor?
    }

    /// Reads the watch's state back: the machine carries on from the restored version, or starts
    /// the feed's epoch when there is nothing to restore. `nil` when the pool refused the work.
    func restore(pool: NIOThreadPool) async -> Tracking? {
        await self.restoreHold.wait()
        let watch = self.watch
        let store = self.initialStore
        let outcome: StateReadBack
        do {
            outcome = try await pool.runIfActive {
                var store = store
                let (restoration, setAside) = store.restore(for: watch)
                return StateReadBack(
                    store: store, restoration: restoration, setAside: setAside,
                    version1ClientAt: store.isPersistent ? store.version1Clients.read() : nil)
            }
        } catch {
            return nil
        }
        // The restore brought the log up to the restored version: if the disk had no room for
        // it, say so now rather than at the next save.
        var restored = outcome.store
        self.reportDroppedHistory(of: &restored)
        self.reportRecordsFile(of: restored)
        for file in outcome.setAside {
            self.logger.notice(
                "a checkpoint does not read whole; \(file.handlingDescription)",
                metadata: ["file": "\(file.damage.path)", "problem": "\(file.damage.reason)"])
        }
        let fresh = StateMachine(watch: self.feed.name, epoch: self.feed.epoch)
        switch outcome.restoration {
        case .restored(let version, let stored, let changesets):
            self.feed.restore(version, changesets: changesets, version1ClientAt: outcome.version1ClientAt)
            self.logger.info("state restored", metadata: ["cursor": "\(version.cursor)", "changesets": "\(changesets.count)"])
            let reader = restored.takeRestoredReader()
            return Tracking(
                machine: StateMachine(watch: self.feed.name, restoring: version, options: stored.readOptions, reader: reader), store: restored)
        case .none:
            self.logger.info("no saved state: a new history starts", metadata: ["state": "\(store.directory)"])
        case .identityChanged(let fields):
            self.logger.notice(
                "the watch's \(WatchConfiguration.Field.configurationKeys(fields)) changed since its state was saved: a new history starts")
        case .distrusted(let reason, let discardFailure):
            self.logger.notice(
                "\(reason): the saved state is discarded and a new history starts",
                metadata: discardFailure.map { ["discard": "incomplete: \($0)"] } ?? [:])
        case .damaged(let file):
            self.logger.error(
                "damaged state: \(file.damage.path) cannot be used; \(file.handlingDescription); a new history starts",
                metadata: ["file": "\(file.damage.path)", "problem": "\(file.damage.reason)"])
        }
        return Tracking(machine: fresh, store: restored)
    }
}
