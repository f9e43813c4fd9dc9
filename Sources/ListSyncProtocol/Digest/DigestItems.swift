import ListDiff
import ListFormats

/// A list's sections as the items of the version 2 digest (``DigestTreeRules``): for each
/// section, its own item and then one per record, numbered from 0 across sections. Generic over
/// how the sections hold their hashes: the daemon's parsed sections, a client's mirrored ones.
struct DigestItems<Section: DigestSection> {
    let sections: [Section]
    /// The item number of each section's own item.
    private let starts: [Int]
    /// The number of items.
    let count: Int

    /// The items of `sections`. O(sections).
    init(_ sections: [Section]) {
        self.sections = sections
        (self.starts, self.count) = DigestItemNumbering.sectionStarts(recordCounts: sections.lazy.map(\.digestRecordCount))
    }

    /// Where item `item` is: its section, and its record in it (`nil` for the section's own).
    ///
    /// - Complexity: O(log sections).
    func location(of item: Int) -> (section: Int, record: Int?) {
        var low = 0
        var high = self.starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if self.starts[middle] <= item { low = middle } else { high = middle - 1 }
        }
        let offset = item - self.starts[low]
        return (low, offset == 0 ? nil : offset - 1)
    }

    /// The tag and hash of item `item`.
    func item(_ item: Int) -> (tag: UInt8, hash: ContentHash) {
        let (section, record) = self.location(of: item)
        guard let record else { return (DigestTreeRules.sectionTag, self.sections[section].digestModelHash) }
        return (DigestTreeRules.recordTag, self.sections[section].digestRecordHash(record))
    }

    /// How many items `old` and `new` share at their start and at their end (not overlapping),
    /// compared item by item.
    ///
    /// - Complexity: O(shared items) comparisons of 16-byte hashes.
    static func sharedEndsByItem(_ old: DigestItems, _ new: DigestItems) -> (prefix: Int, suffix: Int) {
        let limit = min(old.count, new.count)
        var prefix = 0
        while prefix < limit, old.item(prefix) == new.item(prefix) { prefix += 1 }
        var suffix = 0
        while suffix < limit - prefix, old.item(old.count - 1 - suffix) == new.item(new.count - 1 - suffix) { suffix += 1 }
        return (prefix, suffix)
    }

}

extension DigestItems {
    /// How many items `old` and `new` share at their start and at their end (not overlapping).
    ///
    /// - Complexity: O(shared items) comparisons of 16-byte hashes; a list of one section (a
    ///   linear list) compares its records' hashes, but for the records `known` at its ends.
    static func sharedEnds(_ old: DigestItems, _ new: DigestItems, known: KnownEqualEnds = .nothing) -> (prefix: Int, suffix: Int) {
        let limit = min(old.count, new.count)
        if old.sections.count == 1, new.sections.count == 1 {
            let oldSection = old.sections[0]
            let newSection = new.sections[0]
            let sameModel = oldSection.digestModelHash == newSection.digestModelHash
            let oldCount = oldSection.digestRecordCount
            let newCount = newSection.digestRecordCount
            let recordLimit = min(oldCount, newCount)
            var prefix = 0
            if sameModel {
                prefix = min(known.prefix, recordLimit)
                while prefix < recordLimit, oldSection.digestRecordHash(prefix) == newSection.digestRecordHash(prefix) { prefix += 1 }
                prefix += 1
            }
            var suffix = min(known.suffix, limit - prefix, recordLimit)
            while suffix < min(limit - prefix, recordLimit),
                oldSection.digestRecordHash(oldCount - 1 - suffix) == newSection.digestRecordHash(newCount - 1 - suffix)
            {
                suffix += 1
            }
            return (prefix, suffix)
        }
        return Self.sharedEndsByItem(old, new)
    }
}

extension DigestItems {
    /// The items cut into leaves.
    struct LeafSource: DigestChunkSource {
        let items: DigestItems
        private var section = 0
        /// The next item's record in ``section``; -1 for the section's own item.
        private var record = -1
        private var position = 0
        /// The items of the leaf being read.
        private var leaf: [UInt8] = []

        init(items: DigestItems) {
            self.items = items
            self.leaf.reserveCapacity(128 * DigestTreeRules.itemSize)
        }

        var count: Int { self.items.count }

        mutating func seek(to item: Int) {
            self.position = item
            guard item < self.items.count else { return }
            let (section, record) = self.items.location(of: item)
            self.section = section
            self.record = record ?? -1
        }

        mutating func nextChunk(digests: inout [UInt8]) -> (end: Int, atBoundary: Bool) {
            self.leaf.removeAll(keepingCapacity: true)
            var atBoundary = false
            while self.position < self.items.count {
                let section = self.items.sections[self.section]
                let (tag, hash) = self.record < 0
                    ? (DigestTreeRules.sectionTag, section.digestModelHash)
                    : (DigestTreeRules.recordTag, section.digestRecordHash(self.record))
                DigestTreeRules.appendItem(tag: tag, hash: hash, to: &self.leaf)
                self.position += 1
                self.record += 1
                if self.record == section.digestRecordCount {
                    self.section += 1
                    self.record = -1
                }
                if DigestTreeRules.endsLeaf(hash) {
                    atBoundary = true
                    break
                }
            }
            self.leaf.withUnsafeBytes { DigestTreeRules.appendHash(of: $0, to: &digests) }
            return (self.position, atBoundary)
        }
    }
}
