#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The trie as the scanner reads it: a pointer-based copy of the flat arrays,
/// owned by the scanner.
struct JSONFieldLookup: ~Copyable {
    private let nodes: UnsafeMutableBufferPointer<JSONFieldTrie.FlatNode>
    private let children: UnsafeMutableBufferPointer<JSONFieldTrie.FlatChild>
    private let names: UnsafeMutableBufferPointer<UInt8>

    init(_ trie: JSONFieldTrie) {
        nodes = .allocate(capacity: trie.nodes.count)
        _ = nodes.initialize(from: trie.nodes)
        children = .allocate(capacity: max(trie.children.count, 1))
        _ = children.initialize(from: trie.children)
        names = .allocate(capacity: max(trie.names.count, 1))
        _ = names.initialize(from: trie.names)
    }

    deinit {
        nodes.deallocate()
        children.deallocate()
        names.deallocate()
    }

    /// Whether `node` has children to look for.
    @inline(__always)
    func hasChildren(_ node: Int32) -> Bool {
        node >= 0 && nodes[Int(node)].childCount > 0
    }

    /// The child of `node` for the member named `name` (unescaped bytes).
    func child(of node: Int32, named name: UnsafeRawBufferPointer) -> Int32 {
        let flat = nodes[Int(node)]
        for child in children[flat.firstChild..<flat.firstChild + flat.childCount]
        where child.nameEnd - child.nameStart == name.count {
            guard let nameBytes = name.baseAddress, let names = names.baseAddress else { return child.node }
            if memcmp(names + child.nameStart, nameBytes, name.count) == 0 { return child.node }
        }
        return JSONFieldTrie.none
    }

    /// The child of `node` for array element `index`.
    func child(of node: Int32, index: Int) -> Int32 {
        let flat = nodes[Int(node)]
        for child in children[flat.firstChild..<flat.firstChild + flat.childCount] where child.index == index {
            return child.node
        }
        return JSONFieldTrie.none
    }

    /// The capture slot of `node`, or -1.
    @inline(__always)
    func capture(_ node: Int32) -> Int {
        node >= 0 ? nodes[Int(node)].capture : -1
    }

    /// Whether `node` is left out of the content.
    @inline(__always)
    func isIgnored(_ node: Int32) -> Bool {
        node >= 0 && nodes[Int(node)].isIgnored
    }
}
