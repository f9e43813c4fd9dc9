import ListFormats
import ListSyncClient
import ListSyncProtocol

/// The table as the sink knows it, in memory: for each section its model and, in order, each
/// row's identity (`listsync_row`), order key and content hash — not the values, which live in
/// the database only.
///
/// The sink turns a changeset's positions into rows with it: a stage names records by their
/// place, the table by their row. It is rebuilt from the table when the sink starts, and kept
/// equal to it after each commit.
struct SinkList {
    /// The version the table holds.
    var cursor: Cursor
    /// The list's columns.
    var schema: ListSchema
    /// The sections in order; each record's value is its row's identity (see ``tag(_:hash:)``),
    /// so that ``ChangesetStage/apply(to:)`` moves row identities the way a mirror moves records.
    var sections: [MirroredSection]
    /// Each row's order key.
    var orders: [Int64: String]
    /// The identity the next new row gets.
    var nextRowID: Int64
    /// The place in the stream the version came from, for a sink fed by a stream; written with
    /// the cursor.
    var streamPlace: SinkStreamPlace?
    /// The digest definition the source's changesets follow: the protocol version the sink's
    /// connection spoke (a stream's lines are version 1). Version 1 until a snapshot or
    /// changeset says otherwise.
    var digestVersion = DigestVersion.v1
    /// At version 2, the digest's tree of the list (``ListDigestTree``), so that each
    /// changeset is checked in proportion to what it changed; `nil` until needed.
    var tree: ListDigestTree?

    /// A row for the sink: its identity in place of its value.
    static func tag(_ rowID: Int64, hash: ContentHash) -> ChangesetStage.Record {
        ChangesetStage.Record(value: .number(String(rowID)), hash: hash)
    }

    /// The identity a ``tag(_:hash:)`` holds.
    static func rowID(of record: ChangesetStage.Record) -> Int64 {
        guard case .number(let literal) = record.value, let rowID = Int64(literal) else {
            preconditionFailure("a sink row is tagged with its identity")
        }
        return rowID
    }

    /// The list of a snapshot: rows numbered from 1, each section's order keys spread evenly.
    init(snapshot mirror: MirroredList, cursor: Cursor) {
        self.cursor = cursor
        self.schema = mirror.schema
        self.sections = []
        self.orders = [:]
        self.orders.reserveCapacity(mirror.recordCount)
        var next: Int64 = 1
        for section in mirror.sections {
            let keys = OrderKey.spread(section.records.count)
            var rows: [ChangesetStage.Record] = []
            rows.reserveCapacity(section.records.count)
            for (record, key) in zip(section.records, keys) {
                rows.append(Self.tag(next, hash: record.hash))
                self.orders[next] = key
                next += 1
            }
            self.sections.append(MirroredSection(model: section.model, records: rows))
        }
        self.nextRowID = next
        self.digestVersion = mirror.digestVersion
    }

    /// A list read back from the table.
    init(cursor: Cursor, schema: ListSchema, sections: [MirroredSection], orders: [Int64: String]) {
        self.cursor = cursor
        self.schema = schema
        self.sections = sections
        self.orders = orders
        self.nextRowID = (orders.keys.max() ?? 0) + 1
    }

    /// Checks the next changesets with `version`'s digest (the protocol version of the sink's
    /// connection): a list loaded from the table does not know it until the first changeset.
    mutating func useDigestVersion(_ version: DigestVersion) {
        guard version != self.digestVersion else { return }
        self.digestVersion = version
        self.tree = nil
    }

    /// How many rows the table has.
    var rowCount: Int { self.sections.reduce(0) { $0 + $1.records.count } }

    /// The digest of the rows in ``digestVersion``, as the daemon computes it for the list
    /// (``ListDigest``): what the cursor row stores.
    var digest: ListDigest {
        self.tree?.digest ?? Self.digest(schema: self.schema, of: self.sections, version: self.digestVersion)
    }

    /// The `version` digest of `sections`, computed from scratch as a mirror computes it: the
    /// one computation of it in the sink, for the list in memory and for the table read back
    /// by `--verify`. O(*n*).
    static func digest(schema: ListSchema, of sections: [MirroredSection], version: DigestVersion) -> ListDigest {
        ListDigest(schema: schema, sections: sections, version: version)
    }

    /// The value of the `listsync_section` column for rows of a section with `model`: a string
    /// as it is, anything else as JSON text.
    static func sectionValue(_ model: ListValue) -> SQLValue {
        if case .string(let string) = model { return .text(string) }
        return .text(model.jsonText)
    }
}
