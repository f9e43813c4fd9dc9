import ListFormats

/// A list's columns after a change, with what changed: the `schema` of a changeset whose version
/// changed the CSV header (or the member names of JSON records).
public struct SchemaUpdate: Hashable, Sendable {
    /// The new schema.
    public var schema: ListSchema
    /// How it differs from the previous version's.
    public var change: SchemaChange

    /// The update from `old` to `new`; `nil` when they are equal.
    public init?(from old: ListSchema, to new: ListSchema) {
        guard old != new else { return nil }
        self.init(schema: new, change: new.changes(from: old))
    }

    /// An update to `schema`.
    public init(schema: ListSchema, change: SchemaChange) {
        self.schema = schema
        self.change = change
    }
}
