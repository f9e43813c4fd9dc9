/// The columns of a list: the CSV header in order, or for JSON the member
/// names of object records in order of first appearance.
///
/// Comparing two schemas with ``changes(from:)`` tells whether a new version
/// of a file changed its header.
public struct ListSchema: Hashable, Sendable {
    /// The column names, in order.
    public var columns: [String]

    /// Creates a schema.
    public init(columns: [String]) {
        self.columns = columns
    }

    /// How this schema differs from `old`. O(*n* + *m*) expected.
    ///
    /// A column that disappears at the same position where a new one appears
    /// counts as renamed; the remaining ones as removed and added. Columns in
    /// both schemas whose relative order changed count as reordered.
    public func changes(from old: ListSchema) -> SchemaChange {
        let oldNames = Set(old.columns)
        let newNames = Set(columns)
        var removed = old.columns.enumerated().filter { !newNames.contains($0.element) }
        var added = columns.enumerated().filter { !oldNames.contains($0.element) }
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
}
