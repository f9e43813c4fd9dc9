import ListFormats

/// A list's columns after a change, with what changed: the `schema` of a changeset whose version
/// changed the CSV header (or the member names of JSON records).
public struct SchemaUpdate: Hashable, Sendable {
    /// The new schema.
    public var schema: ListSchema
    /// How it differs from the previous version's.
    public var change: SchemaChange

    /// The update from the schema of `old` to that of `new`, a later version of the same list;
    /// `nil` when they are equal. Every difference is published, since the digest covers the
    /// schema: between JSON lists the change may be empty when only the order of first
    /// appearance changed (``ParsedList/schemaChange(from:)``).
    public init?(from old: ParsedList, to new: ParsedList) {
        guard let change = new.schemaChange(from: old) else { return nil }
        self.init(schema: new.schema, change: change)
    }

    /// An update to `schema`.
    public init(schema: ListSchema, change: SchemaChange) {
        self.schema = schema
        self.change = change
    }
}
