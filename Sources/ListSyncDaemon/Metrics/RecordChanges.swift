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
    /// The records of a section inserted or deleted are counted from that one section, read
    /// after the stage that inserts it (or before the one that deletes it): a stage's whole
    /// data, which ListDiff builds when asked (the list, O(*n*)), is never built.
    ///
    /// - Complexity: O(*s*) in the number of changes, plus O(1) per section inserted and
    ///   O(section) per section deleted.
    init<Sections: RangeReplaceableCollection>(_ changeset: StagedChangeset<Sections>, source: Sections)
    where Sections.Element: DifferentiableSection {
        var stageBefore: Changeset<Sections>?
        for stage in changeset {
            self.countElements(of: stage)
            for index in stage.sectionInserted {
                self.inserted += stage.section(at: index).elements.count
            }
            for index in stage.sectionDeleted {
                if let stageBefore {
                    self.deleted += stageBefore.section(at: index).elements.count
                } else if let section = source.dropFirst(index).first {
                    self.deleted += section.elements.count
                }
            }
            stageBefore = stage
        }
    }

    /// Counts `changeset`, a linear one (no section operations: every record counts by itself).
    ///
    /// - Complexity: O(*s*) in the number of changes.
    init<Records: Collection>(linear changeset: StagedChangeset<Records>) {
        for stage in changeset {
            self.countElements(of: stage)
        }
    }

    /// Adds the records `stage` inserts, deletes, updates and moves by themselves.
    private mutating func countElements<C: Collection>(of stage: Changeset<C>) {
        self.inserted += stage.elementInserted.count
        self.deleted += stage.elementDeleted.count
        self.updated += stage.elementUpdated.count
        self.moved += stage.elementMoved.count
    }

    /// No change.
    init() {}
}
