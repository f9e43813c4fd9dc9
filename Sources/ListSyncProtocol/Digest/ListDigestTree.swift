import ListDiff
import ListFormats

/// The version 2 digest of a list kept as its tree (``DigestTreeRules``), so that the next
/// version's digest costs what changed rather than the whole list: the daemon keeps one per
/// version and derives the next one with ``updated(schema:from:to:)``.
///
/// It holds each leaf's end and digest and each node's end and digest (about 40 bytes per 64
/// records). An update finds the items the two lists share at both ends, re-cuts only the leaves
/// between (a boundary depends only on the item that ends it, so the leaves after the first
/// boundary in the shared tail are the old ones), then the nodes around the changed leaves, then
/// hashes the node digests once.
///
/// - Complexity of an update: O(*c* + *n*/64) where *c* is the number of items between the
///   shared ends: SHA-256 over the *c* items' leaves and their nodes and over the node digests
///   (*n*/4096 of them), integer work over the leaves. Finding the shared ends compares record
///   hashes (16 bytes each) from both ends until they differ — memory speed, no hashing. A
///   sectioned list adds O(sections).
public struct ListDigestTree: Sendable {
    private var schemaBlock: [UInt8]
    /// The number of items (sections plus records).
    private var itemCount = 0
    /// Where each leaf ends, in items (exclusive).
    private var leafEnds: [Int] = []
    /// Each leaf's digest, 32 bytes each, in order.
    private var leafDigests: [UInt8] = []
    /// Where each node ends, in leaves (exclusive).
    private var nodeEnds: [Int] = []
    /// Each node's digest, 32 bytes each, in order.
    private var nodeDigests: [UInt8] = []
    /// The version 2 digest of the list.
    public private(set) var digest: ListDigest

    /// The tree of a list with `schema` and `sections`, built from scratch.
    ///
    /// - Complexity: O(*n*).
    public init(schema: ListSchema, sections: [ArraySection<SectionModel, ListRecord>]) {
        self.init(schema: schema, digestSections: sections)
    }

    /// The tree of a list with `schema` and `sections` (any ``DigestSection``: a client's
    /// mirrored sections), built from scratch.
    ///
    /// - Complexity: O(*n*).
    public init<Section: DigestSection>(schema: ListSchema, digestSections sections: [Section]) {
        self.schemaBlock = schema.canonicalBytes
        self.digest = DigestTreeRules.top(schemaBlock: self.schemaBlock, nodeDigests: [])
        self.apply(DigestItems(sections), prefix: 0, suffix: 0)
    }

    /// The tree of `new`, given that this is the tree of `old`; `known` says how many records at
    /// both ends of the two (all sections in order) are known to be the same (a reader that kept
    /// them): their hashes are not compared again.
    ///
    /// - Complexity: see the type.
    public func updated(
        schema: ListSchema, from old: [ArraySection<SectionModel, ListRecord>], to new: [ArraySection<SectionModel, ListRecord>],
        known: KnownEqualEnds = .nothing
    ) -> ListDigestTree {
        updated(schema: schema, fromDigestSections: old, to: new, known: known)
    }

    /// The tree of `new`, given that this is the tree of `old`: ``updated(schema:from:to:known:)``
    /// for sections of any ``DigestSection`` — a linear list's records in runs shared between
    /// versions (``LinearDigestSection``), which are not copied.
    ///
    /// - Complexity: see the type; a record's hash is looked up through the section.
    public func updated<Section: DigestSection>(
        schema: ListSchema, fromDigestSections old: [Section], to new: [Section], known: KnownEqualEnds = .nothing
    ) -> ListDigestTree {
        var tree = self
        let oldItems = DigestItems(old)
        let newItems = DigestItems(new)
        precondition(oldItems.count == self.itemCount, "the tree is not the old list's")
        tree.schemaBlock = schema.canonicalBytes
        let (prefix, suffix) = DigestItems.sharedEnds(oldItems, newItems, known: known)
        tree.apply(newItems, prefix: prefix, suffix: suffix)
        return tree
    }

    /// Makes this, the tree of a list of `itemCount` items, the tree of `sections`, given that
    /// the two lists share their first `sharedPrefix` and last `sharedSuffix` items (as the
    /// digest counts items: one per section, then one per record). A client that applied a
    /// changeset knows these from the positions its stages touched, without comparing the
    /// lists: the update then costs what changed.
    ///
    /// - Precondition: The shared ends are shared (an item said shared that differs gives a
    ///   wrong digest, caught by the check against the daemon's).
    /// - Complexity: O(*c* + *n*/64), *c* the items between the shared ends.
    public mutating func update<Section: DigestSection>(
        schema: ListSchema, sections: [Section], sharedPrefix: Int, sharedSuffix: Int
    ) {
        let items = DigestItems(sections)
        let limit = min(items.count, self.itemCount)
        let prefix = min(max(sharedPrefix, 0), limit)
        let suffix = min(max(sharedSuffix, 0), limit - prefix)
        self.schemaBlock = schema.canonicalBytes
        self.apply(items, prefix: prefix, suffix: suffix)
    }

    /// The number of items (sections plus records) of the list the tree is of.
    public var count: Int { self.itemCount }

    /// Makes the tree that of `items`, which share their first `prefix` and last `suffix` items
    /// with the list the tree is of.
    private mutating func apply<Section: DigestSection>(_ items: DigestItems<Section>, prefix: Int, suffix: Int) {
        if prefix + suffix < max(items.count, self.itemCount) {
            var leaves = DigestItems.LeafSource(items: items)
            let changed = Self.recut(
                ends: &self.leafEnds, digests: &self.leafDigests, oldCount: self.itemCount, source: &leaves, prefix: prefix, suffix: suffix)
            var nodes = NodeSource(leafDigests: self.leafDigests, count: self.leafEnds.count)
            _ = Self.recut(
                ends: &self.nodeEnds, digests: &self.nodeDigests, oldCount: changed.oldCount, source: &nodes, prefix: changed.first,
                suffix: changed.oldCount - changed.oldEnd)
            self.itemCount = items.count
        }
        self.digest = DigestTreeRules.top(schemaBlock: self.schemaBlock, nodeDigests: self.nodeDigests)
        self._checkInvariants()
    }

    /// Re-cuts the chunks (leaves or nodes) of a sequence of `oldCount` items whose first `prefix`
    /// and last `suffix` items are those of `source`'s: from the chunk holding the first changed
    /// item until a chunk ends at a boundary inside the shared tail; the old chunks after that one
    /// are kept, their ends moved by the change in length.
    ///
    /// - Returns: The chunks replaced (`first..<oldEnd` of the `oldCount` old ones).
    private static func recut<Source: DigestChunkSource>(
        ends: inout [Int], digests: inout [UInt8], oldCount: Int, source: inout Source, prefix: Int, suffix: Int
    ) -> (first: Int, oldEnd: Int, oldCount: Int) {
        let oldChunks = ends.count
        let newCount = source.count
        let delta = newCount - oldCount
        // The chunk holding the first changed item (the last one when items were only appended).
        var first = 0
        if !ends.isEmpty {
            let changedItem = min(prefix, oldCount - 1)
            first = Self.firstIndex(in: ends, above: changedItem)
        }
        let start = first == 0 ? 0 : ends[first - 1]
        var newEnds: [Int] = []
        var newDigests: [UInt8] = []
        var oldEnd = oldChunks
        var position = start
        source.seek(to: start)
        while position < newCount {
            let (end, atBoundary) = source.nextChunk(digests: &newDigests)
            newEnds.append(end)
            position = end
            if atBoundary, end - 1 >= newCount - suffix, end < newCount {
                // The chunk ends at a boundary in the shared tail: the old chunk that ends at the
                // same item ends there too, and every old chunk after it is unchanged.
                let oldChunk = Self.firstIndex(in: ends, above: end - delta - 1)
                precondition(ends[oldChunk] == end - delta, "a boundary in the shared tail that did not end an old chunk")
                oldEnd = oldChunk + 1
                break
            }
        }
        // The kept chunks before and after the new ones, copied once into storage of the exact
        // size: the old arrays are the previous version's too (shared), so they are not
        // changed in place, and the tail is not copied once more through a growing buffer.
        var joinedEnds: [Int] = []
        joinedEnds.reserveCapacity(first + newEnds.count + oldChunks - oldEnd)
        joinedEnds.append(contentsOf: ends[..<first])
        joinedEnds.append(contentsOf: newEnds)
        joinedEnds.append(contentsOf: ends[oldEnd...].lazy.map { $0 + delta })
        ends = joinedEnds
        let digestSize = DigestTreeRules.digestSize
        var joinedDigests: [UInt8] = []
        joinedDigests.reserveCapacity(digests.count + newDigests.count - (oldEnd - first) * digestSize)
        joinedDigests.append(contentsOf: digests[..<(first * digestSize)])
        joinedDigests.append(contentsOf: newDigests)
        joinedDigests.append(contentsOf: digests[(oldEnd * digestSize)...])
        digests = joinedDigests
        return (first, oldEnd, oldChunks)
    }

    /// The first index of `ends` (ascending) whose value is above `item`; `ends.count` when none is.
    private static func firstIndex(in ends: [Int], above item: Int) -> Int {
        var low = 0
        var high = ends.count
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] > item { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Leaf digests as the items of nodes.
    private struct NodeSource: DigestChunkSource {
        let leafDigests: [UInt8]
        let count: Int
        private var position = 0

        init(leafDigests: [UInt8], count: Int) {
            self.leafDigests = leafDigests
            self.count = count
        }

        mutating func seek(to item: Int) {
            self.position = item
        }

        mutating func nextChunk(digests: inout [UInt8]) -> (end: Int, atBoundary: Bool) {
            let size = DigestTreeRules.digestSize
            let start = self.position
            var atBoundary = false
            while self.position < self.count {
                self.position += 1
                if DigestTreeRules.endsNode(lastByte: self.leafDigests[self.position * size - 1]) {
                    atBoundary = true
                    break
                }
            }
            self.leafDigests[(start * size)..<(self.position * size)].withUnsafeBytes { DigestTreeRules.appendHash(of: $0, to: &digests) }
            return (self.position, atBoundary)
        }
    }

    /// Checks that the leaves cover the items and the nodes the leaves (debug builds only).
    func _checkInvariants() {
        #if DEBUG
        precondition(self.leafEnds.last ?? 0 == self.itemCount, "the leaves do not end with the items")
        precondition(self.nodeEnds.last ?? 0 == self.leafEnds.count, "the nodes do not end with the leaves")
        precondition(self.leafDigests.count == self.leafEnds.count * DigestTreeRules.digestSize, "leaf digests and ends differ")
        precondition(self.nodeDigests.count == self.nodeEnds.count * DigestTreeRules.digestSize, "node digests and ends differ")
        #endif
    }
}

/// A sequence of items cut into chunks at content-defined boundaries: a list's items into leaves,
/// or leaf digests into nodes.
protocol DigestChunkSource {
    /// The number of items.
    var count: Int { get }
    /// Continues at `item`.
    mutating func seek(to item: Int)
    /// Reads up to and including the next boundary item, or to the last item, and appends the
    /// chunk's digest to `digests`.
    ///
    /// - Returns: Where the chunk ends (exclusive), and whether its last item is a boundary.
    mutating func nextChunk(digests: inout [UInt8]) -> (end: Int, atBoundary: Bool)
}
