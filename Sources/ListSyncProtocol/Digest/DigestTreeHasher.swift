import ListFormats

/// The version 2 digest computed from scratch, item by item, as ``ListDigest/Builder`` is fed:
/// what a client computes from a whole list (the incremental form is ``ListDigestTree``).
///
/// O(*n*) in the number of records; holds one open leaf and one open node at a time.
struct DigestTreeHasher {
    private let schemaBlock: [UInt8]
    /// The items of the leaf not ended yet.
    private var leaf: [UInt8] = []
    /// The digests of the leaves of the node not ended yet.
    private var node: [UInt8] = []
    /// The digests of the nodes ended so far.
    private var nodes: [UInt8] = []

    /// An empty list with the schema block `schemaBlock`.
    init(schemaBlock: [UInt8]) {
        self.schemaBlock = schemaBlock
        self.leaf.reserveCapacity(128 * DigestTreeRules.itemSize)
    }

    /// Adds the next item: a section's (``DigestTreeRules/sectionTag``) or a record's.
    mutating func add(tag: UInt8, hash: ContentHash) {
        DigestTreeRules.appendItem(tag: tag, hash: hash, to: &self.leaf)
        if DigestTreeRules.endsLeaf(hash) {
            self.endLeaf()
        }
    }

    private mutating func endLeaf() {
        self.leaf.withUnsafeBytes { DigestTreeRules.appendHash(of: $0, to: &self.node) }
        self.leaf.removeAll(keepingCapacity: true)
        if let last = self.node.last, DigestTreeRules.endsNode(lastByte: last) {
            self.endNode()
        }
    }

    private mutating func endNode() {
        self.node.withUnsafeBytes { DigestTreeRules.appendHash(of: $0, to: &self.nodes) }
        self.node.removeAll(keepingCapacity: true)
    }

    /// The digest: the last leaf and node end with the list.
    consuming func finish() -> ListDigest {
        if !self.leaf.isEmpty {
            self.endLeaf()
        }
        if !self.node.isEmpty {
            self.endNode()
        }
        return DigestTreeRules.top(schemaBlock: self.schemaBlock, nodeDigests: self.nodes)
    }
}
