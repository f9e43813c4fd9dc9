/// The fields of a record the JSON scanner must notice, as a trie of member
/// names (and array indices) from the record down.
///
/// A node can capture the value found there (a key part or the `section_by`
/// field, by slot number) or leave it out of the content (`ignore`). While
/// scanning, only members under a node with children are looked up, so
/// records cost nothing extra below the fields that matter. The trie is
/// stored flat, in arrays of plain values, so lookups cost no reference
/// counting.
struct JSONFieldTrie: Sendable {
    private struct Node: Sendable {
        var children: [Int] = []
        var capture = -1
        var isIgnored = false
    }

    private struct Child: Sendable {
        var name: [UInt8]
        var node: Int
    }

    /// A node, flattened.
    struct FlatNode: Sendable {
        var firstChild: Int
        var childCount: Int
        var capture: Int
        var isIgnored: Bool
    }

    /// An edge, flattened: the name's bytes are `names[nameStart..<nameEnd]`.
    struct FlatChild: Sendable {
        var nameStart: Int
        var nameEnd: Int
        /// The name as an array index (`0`, `12`; no leading zeros), or -1.
        var index: Int
        var node: Int32
    }

    /// No node: the value is not on any path of interest.
    static let none: Int32 = -1
    /// The record itself.
    static let root: Int32 = 0

    private var building: [Node] = [Node()]
    private var buildingChildren: [Child] = []
    private(set) var nodes: [FlatNode] = []
    private(set) var children: [FlatChild] = []
    private(set) var names: [UInt8] = []

    /// The number of capture slots.
    private(set) var captureCount = 0

    init() {
        flatten()
    }

    /// Adds a path whose value is captured; returns the slot.
    mutating func addCapture(_ path: FieldPath) -> Int {
        let node = insert(path)
        if building[node].capture < 0 {
            building[node].capture = captureCount
            captureCount += 1
        }
        flatten()
        return building[node].capture
    }

    /// Adds a path whose value is left out of the content.
    mutating func addIgnored(_ path: FieldPath) {
        building[insert(path)].isIgnored = true
        flatten()
    }

    private mutating func insert(_ path: FieldPath) -> Int {
        var node = 0
        for token in path.tokens {
            if let child = building[node].children.first(where: { buildingChildren[$0].name == token }) {
                node = buildingChildren[child].node
                continue
            }
            building.append(Node())
            buildingChildren.append(Child(name: token, node: building.count - 1))
            building[node].children.append(buildingChildren.count - 1)
            node = building.count - 1
        }
        return node
    }

    private mutating func flatten() {
        nodes = []
        children = []
        names = []
        for node in building {
            nodes.append(FlatNode(firstChild: children.count, childCount: node.children.count, capture: node.capture, isIgnored: node.isIgnored))
            for child in node.children.map({ buildingChildren[$0] }) {
                let start = names.count
                names.append(contentsOf: child.name)
                children.append(FlatChild(nameStart: start, nameEnd: names.count, index: Self.arrayIndex(child.name) ?? -1, node: Int32(child.node)))
            }
        }
    }

    /// The fields when they are all top-level members (paths of one
    /// token), as the fast path takes them; `nil` when a path goes deeper.
    var topLevelFields: [(name: [UInt8], capture: Int, isIgnored: Bool)]? {
        guard building[0].children.allSatisfy({ building[buildingChildren[$0].node].children.isEmpty }) else { return nil }
        return building[0].children.map { child in
            let node = building[buildingChildren[child].node]
            return (buildingChildren[child].name, node.capture, node.isIgnored)
        }
    }

    private static func arrayIndex(_ token: [UInt8]) -> Int? {
        guard let first = token.first, token.allSatisfy(ASCII.isDigit), first != ASCII.zero || token.count == 1,
            token.count < 18
        else { return nil }
        return token.reduce(0) { $0 * 10 + Int($1 - ASCII.zero) }
    }
}
