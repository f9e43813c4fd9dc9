import ListDiff

/// How many records one changeset inserted, deleted, updated and moved, for
/// `listsync_watch_records_changed_total{op}`.
///
/// Records of a section inserted or deleted whole count as inserted or deleted, as subscribers
/// see them; a section moved or updated counts nothing by itself (its records did not change).
struct RecordChanges: Sendable, Hashable {
    var inserted = 0
    var deleted = 0
    var updated = 0
    var moved = 0

    /// Counts `changeset`, which turns `source` into its last stage's data.
    ///
    /// - Complexity: O(*s*) in the number of changes, plus O(1) per section inserted or deleted.
    init<Sections: Collection>(_ changeset: StagedChangeset<Sections>, source: Sections) where Sections.Element: DifferentiableSection {
        var before = source
        for stage in changeset {
            self.inserted += stage.elementInserted.count
            self.deleted += stage.elementDeleted.count
            self.updated += stage.elementUpdated.count
            self.moved += stage.elementMoved.count
            if !stage.sectionInserted.isEmpty {
                let after = Array(stage.data)
                self.inserted += stage.sectionInserted.reduce(0) { $0 + (after.indices.contains($1) ? after[$1].elements.count : 0) }
            }
            if !stage.sectionDeleted.isEmpty {
                let sections = Array(before)
                self.deleted += stage.sectionDeleted.reduce(0) { $0 + (sections.indices.contains($1) ? sections[$1].elements.count : 0) }
            }
            before = stage.data
        }
    }

    /// No change.
    init() {}
}
