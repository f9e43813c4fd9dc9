import ListSyncProtocol

extension ChangesetMessage {
    /// How many records the changeset touches — deleted, inserted (one by one or with a new
    /// section), updated, moved — counted from its stages without applying it: what decides a
    /// refill (``SinkTable/refills(touched:rows:)``) before any work in memory. A record several
    /// stages touch counts once per stage; the records of a deleted section are not counted.
    var touchedRecords: Int {
        self.stages.reduce(0) { total, stage in
            total + stage.elementDeleted.count + stage.elementInserted.count + stage.elementUpdated.count + stage.elementMoved.count
                + stage.sectionInserted.reduce(0) { $0 + $1.records.count }
        }
    }
}
