import ListFormats

extension SinkTableLayout {
    /// The column a field of a watch's key names, as the daemon's `list` reply or `--key` spells
    /// it: a CSV column or a JSON top-level member (`sku`, `/sku`); `nil` for a deeper JSON
    /// Pointer (`/meta/id`), which no column holds.
    public static func column(ofKeyField field: String) -> String? {
        (try? FieldPath(parsing: field))?.topLevelName
    }

    /// The table's primary key for a watch whose key is `fields` (as `list` names them): their
    /// columns, in key order; empty — the surrogate `listsync_row` — for a watch without a key
    /// or with a field deeper than the top level of a JSON record.
    public static func primaryKey(ofWatchKey fields: [String]) -> [String] {
        let columns = fields.compactMap(Self.column(ofKeyField:))
        return columns.count == fields.count ? columns : []
    }
}
