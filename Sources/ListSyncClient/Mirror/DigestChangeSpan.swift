import ListDiff
import ListSyncProtocol

/// Which items of the version 2 digest (one per section, then one per record, numbered across
/// sections) a changeset can have changed, from the positions its stages name: the items before
/// the first position named and after the last are the same before and after it. What lets a
/// client update its ``ListDigestTree`` (``ListDigestTree/update(schema:sections:sharedPrefix:sharedSuffix:)``)
/// in proportion to the changeset, without comparing the list before and after.
///
/// Each stage is noted with its sections' record counts before and after it, and each position
/// it names is counted in both (a stage names deletions in its source and insertions in its
/// target; counting each in both only narrows the shared ends, never widens them).
///
/// - Complexity: O(positions named + sections) per stage.
public struct DigestChangeSpan: Sendable, Hashable {
    /// How many items, at the start, every stage noted left as they were.
    public private(set) var sharedPrefix = Int.max
    /// How many items, at the end, every stage noted left as they were.
    public private(set) var sharedSuffix = Int.max

    /// A span of no change: nothing noted yet.
    public init() {}

    /// The record counts of `sections`, in order: what ``note(_:sourceCounts:targetCounts:)`` takes.
    public static func recordCounts(of sections: [MirroredSection]) -> [Int] {
        sections.map(\.records.count)
    }

    /// Notes `stage`, applied to sections with `sourceCounts` records and giving sections with
    /// `targetCounts` records.
    public mutating func note(_ stage: ChangesetStage, sourceCounts: [Int], targetCounts: [Int]) {
        for layout in [Layout(counts: sourceCounts), Layout(counts: targetCounts)] {
            for path in stage.elementDeleted { self.touch(path, in: layout) }
            for placed in stage.elementInserted { self.touch(placed.path, in: layout) }
            for placed in stage.elementUpdated { self.touch(placed.path, in: layout) }
            for move in stage.elementMoved {
                self.touch(move.source, in: layout)
                self.touch(move.target, in: layout)
            }
            for index in stage.sectionDeleted { self.touchSection(index, in: layout) }
            for inserted in stage.sectionInserted { self.touchSection(inserted.index, in: layout) }
            for move in stage.sectionMoved {
                self.touchSection(move.source, in: layout)
                self.touchSection(move.target, in: layout)
            }
            for updated in stage.sectionUpdated { self.touchSection(updated.index, in: layout) }
        }
    }

    /// Where each section's own item is, in a list of sections with given record counts.
    private struct Layout {
        let counts: [Int]
        let starts: [Int]
        let count: Int

        init(counts: [Int]) {
            self.counts = counts
            (self.starts, self.count) = DigestItemNumbering.sectionStarts(recordCounts: counts)
        }
    }

    /// Counts item `item` of `layout` as changed.
    private mutating func touch(item: Int, in layout: Layout) {
        self.sharedPrefix = min(self.sharedPrefix, item)
        self.sharedSuffix = min(self.sharedSuffix, max(layout.count - 1 - item, 0))
    }

    /// Counts the record at `path` as changed (a path outside `layout` is counted in the other).
    private mutating func touch(_ path: ElementPath, in layout: Layout) {
        guard path.section >= 0, path.section < layout.starts.count, path.element >= 0 else { return }
        self.touch(item: layout.starts[path.section] + 1 + path.element, in: layout)
    }

    /// Counts section `index` and all its records as changed.
    private mutating func touchSection(_ index: Int, in layout: Layout) {
        guard index >= 0, index < layout.starts.count else { return }
        self.touch(item: layout.starts[index], in: layout)
        self.touch(item: layout.starts[index] + layout.counts[index], in: layout)
    }
}
