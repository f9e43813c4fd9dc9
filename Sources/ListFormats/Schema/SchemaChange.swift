/// The difference between two schemas.
public struct SchemaChange: Hashable, Sendable {
    /// Columns only in the new schema, in new order.
    public var added: [String]

    /// Columns only in the old schema, in old order.
    public var removed: [String]

    /// Columns that changed name in place.
    public var renamed: [Rename]

    /// When the columns present in both schemas changed order: those columns
    /// in their new order; empty otherwise.
    public var reordered: [String]

    /// A column renamed in place.
    public struct Rename: Hashable, Sendable {
        /// The old name.
        public var from: String
        /// The new name.
        public var to: String

        /// Creates a rename.
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// Creates a change.
    public init(added: [String] = [], removed: [String] = [], renamed: [Rename] = [], reordered: [String] = []) {
        self.added = added
        self.removed = removed
        self.renamed = renamed
        self.reordered = reordered
    }

    /// Whether the schemas are the same.
    public var isEmpty: Bool {
        added.isEmpty && removed.isEmpty && renamed.isEmpty && reordered.isEmpty
    }
}

extension SchemaChange: CustomStringConvertible {
    /// One clause per kind of change, e.g.
    /// `added: note; renamed: mail → email; reordered: id, email, name`.
    public var description: String {
        guard !isEmpty else { return "no schema change" }
        var parts: [String] = []
        if !added.isEmpty { parts.append("added: " + added.joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("removed: " + removed.joined(separator: ", ")) }
        if !renamed.isEmpty {
            parts.append("renamed: " + renamed.map { "\($0.from) → \($0.to)" }.joined(separator: ", "))
        }
        if !reordered.isEmpty { parts.append("reordered: " + reordered.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}
