/// The columns of a list: the CSV header in order, or for JSON the member
/// names of object records in order of first appearance — without the
/// fields the options ignore, since those are not published.
///
/// Comparing two schemas with ``changes(from:byPosition:)`` tells whether a
/// new version of a file changed its header.
public struct ListSchema: Hashable, Sendable {
    /// The column names, in order.
    public var columns: [String]

    /// Creates a schema.
    public init(columns: [String]) {
        self.columns = columns
    }

    /// How this schema differs from `old`. O(*n* + *m*) expected.
    ///
    /// - Parameter byPosition: Whether columns are identified by their position, as in a CSV
    ///   header: then a column that disappears at the same position where a new one appears
    ///   counts as renamed, and columns in both schemas whose relative order changed count as
    ///   reordered. Otherwise (JSON member names, which have no position) only added and removed
    ///   names are reported: two unrelated members are never taken for a rename.
    public func changes(from old: ListSchema, byPosition: Bool) -> SchemaChange {
        let oldNames = Set(old.columns)
        let newNames = Set(columns)
        var removed = old.columns.enumerated().filter { !newNames.contains($0.element) }
        var added = columns.enumerated().filter { !oldNames.contains($0.element) }
        guard byPosition else {
            return SchemaChange(added: added.map(\.element), removed: removed.map(\.element))
        }
        var renamed: [SchemaChange.Rename] = []
        let addedAt = Dictionary(added.map { ($0.offset, $0.element) }, uniquingKeysWith: { first, _ in first })
        for (offset, name) in removed {
            if let newName = addedAt[offset] {
                renamed.append(SchemaChange.Rename(from: name, to: newName))
            }
        }
        let renamedFrom = Set(renamed.map(\.from))
        let renamedTo = Set(renamed.map(\.to))
        removed.removeAll { renamedFrom.contains($0.element) }
        added.removeAll { renamedTo.contains($0.element) }
        let keptInOldOrder = old.columns.filter { newNames.contains($0) }
        let keptInNewOrder = columns.filter { oldNames.contains($0) }
        return SchemaChange(
            added: added.map(\.element),
            removed: removed.map(\.element),
            renamed: renamed,
            reordered: keptInOldOrder != keptInNewOrder ? keptInNewOrder : []
        )
    }

    /// The schema block: the canonical bytes of the column names, which the list digest starts
    /// with and which seeds the content hash of CSV records. The column count as 8 bytes
    /// big-endian, then for each name its UTF-8 length as 8 bytes big-endian and its UTF-8 bytes
    /// (docs/PROTOCOL.md, *Digest*). O(total length of the names).
    public var canonicalBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + columns.reduce(0) { $0 + 8 + $1.utf8.count })
        func append(_ count: Int) {
            withUnsafeBytes(of: UInt64(count).bigEndian) { bytes.append(contentsOf: $0) }
        }
        append(columns.count)
        for name in columns {
            append(name.utf8.count)
            bytes.append(contentsOf: name.utf8)
        }
        return bytes
    }

    /// The seed of the content hashes of CSV records with these published columns: XXH3-64 of
    /// ``canonicalBytes``, so that renaming a column changes every record's hash.
    var headerSeed: UInt64 {
        self.canonicalBytes.withUnsafeBytes { StableHash.hash64($0) }
    }
}

extension ParsedList {
    /// How this list's columns differ from those of `old`, an earlier version; `nil` when the
    /// schemas are equal. Renames and reorders are positional, so they are reported only between
    /// two CSV lists (see ``ListSchema/changes(from:byPosition:)``): between JSON lists the change
    /// may be empty while the schemas differ, when only the order of first appearance changed.
    public func schemaChange(from old: ParsedList) -> SchemaChange? {
        guard old.schema != schema else { return nil }
        return schema.changes(from: old.schema, byPosition: old.format.hasHeader && format.hasHeader)
    }
}
