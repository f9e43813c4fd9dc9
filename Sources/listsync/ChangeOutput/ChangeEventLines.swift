import ListFormats
import ListSyncClient
import ListSyncProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--format events`: one line per changed record, in the envelope of Debezium's change events:
///
///     {"op":"u","before":{…},"after":{…},"key":{"sku":"S1"},"source":{"watch":"products","cursor":"5f0c…:13","file":null},"ts_ms":1764075600123}
///
/// `op` is `c` (created), `u` (updated), `d` (deleted), or `r` for each record of a snapshot
/// (read: replace what you hold). `before` and `after` are the record's values (`null` where it
/// does not exist); `key` the key fields' values (`{"hash": …}`, the content hash, for a watch
/// without a key). A sectioned list adds `"section":{"before":…,"after":…}`, the section names. A
/// record that only moves within its section is no event; one that moves to another section is
/// a `u`.
struct ChangeEventLines {
    /// The watch's name.
    let watch: String
    /// The watch's key fields; empty when records are identified by their content.
    let key: [FieldPath]
    /// The watched file's path; `nil` when the daemon does not tell it.
    let file: String?

    /// One `r` line per record of the list at `cursor`.
    func snapshot(_ sections: [MirroredSection], sectioned: Bool, cursor: Cursor) -> [UInt8] {
        let now = Self.milliseconds()
        var lines: [UInt8] = []
        for section in sections {
            let name = sectioned ? section.model.model.text : nil
            for record in section.records {
                lines += self.line(op: "r", before: nil, after: (record.value, name), record: record, cursor: cursor, sectioned: sectioned, at: now)
            }
        }
        return lines
    }

    /// One line per record that `edits` create, change (in value or section) or delete, in the
    /// order they are first touched.
    func changeset(_ edits: [ListEdit], sectioned: Bool, cursor: Cursor) -> [UInt8] {
        /// A record before and after the changeset: its value and section, `nil` where it is not there.
        struct Change {
            var record: ChangesetStage.Record
            var before: (ListValue, String?)?
            var after: (ListValue, String?)?
        }
        var changes: [ListValue: Int] = [:]
        var order: [Change] = []
        func touch(_ record: ChangesetStage.Record, identity: ChangesetStage.Record, before: (ListValue, String?)?, after: (ListValue, String?)?) {
            let key = self.keyValue(of: identity)
            if let index = changes[key] {
                order[index].after = after
                order[index].record = record
            } else {
                changes[key] = order.count
                order.append(Change(record: record, before: before, after: after))
            }
        }
        for edit in edits {
            switch edit {
            case .update(let section, _, let before, let after):
                touch(after, identity: before, before: (before.value, section), after: (after.value, section))
            case .removeRecord(let section, _, let record):
                touch(record, identity: record, before: (record.value, section), after: nil)
            case .removeSection(let name, let records):
                for record in records { touch(record, identity: record, before: (record.value, name), after: nil) }
            case .renameSection:
                continue
            case .addSection(let name, let records):
                for record in records { touch(record, identity: record, before: nil, after: (record.value, name)) }
            case .addRecord(let section, _, let record):
                touch(record, identity: record, before: nil, after: (record.value, section))
            }
        }
        let now = Self.milliseconds()
        var lines: [UInt8] = []
        for change in order {
            let op: String
            switch (change.before, change.after) {
            case (nil, nil): continue
            case (nil, _): op = "c"
            case (_, nil): op = "d"
            case (let before?, let after?):
                guard before.0 != after.0 || before.1 != after.1 else { continue }
                op = "u"
            }
            lines += self.line(op: op, before: change.before, after: change.after, record: change.record, cursor: cursor, sectioned: sectioned, at: now)
        }
        return lines
    }

    /// The record's key: its key fields' values by name, or its content hash without a key.
    private func keyValue(of record: ChangesetStage.Record) -> ListValue {
        guard !self.key.isEmpty else { return .object([.init(name: "hash", value: .string(record.hash.description))]) }
        return .object(self.key.map { field in
            .init(name: field.spelling, value: record.value[member: field.spelling] ?? field.value(in: record.value) ?? .null)
        })
    }

    private func line(
        op: String, before: (ListValue, String?)?, after: (ListValue, String?)?, record: ChangesetStage.Record, cursor: Cursor, sectioned: Bool, at now: Int
    ) -> [UInt8] {
        var members: [ListValue.Member] = [
            .init(name: "op", value: .string(op)),
            .init(name: "before", value: before?.0 ?? .null),
            .init(name: "after", value: after?.0 ?? .null),
            .init(name: "key", value: self.keyValue(of: record)),
            .init(name: "source", value: .object([
                .init(name: "watch", value: .string(self.watch)), .init(name: "cursor", value: .string(cursor.description)),
                .init(name: "file", value: self.file.map(ListValue.string) ?? .null),
            ])),
            .init(name: "ts_ms", value: .number(String(now))),
        ]
        if sectioned {
            members.append(.init(name: "section", value: .object([
                .init(name: "before", value: before?.1.map(ListValue.string) ?? .null),
                .init(name: "after", value: after?.1.map(ListValue.string) ?? .null),
            ])))
        }
        return Array((ListValue.object(members).jsonText + "\n").utf8)
    }

    /// The time now, in milliseconds since 1970.
    private static func milliseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }
}
