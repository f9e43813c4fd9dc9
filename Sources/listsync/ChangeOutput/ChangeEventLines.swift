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
///
/// Records that share a key (repeated rows of a list without a key, repeated keys) are told
/// apart by their occurrence: the second and later records of a key, in list order (sections in
/// order, then records), carry `"occurrence": N` (1, 2, …) in their `key`. Events compare each
/// occurrence before and after a changeset, so a consumer that holds records by `key` and
/// replays the events holds exactly the records of each version.
struct ChangeEventLines {
    /// The watch's name.
    let watch: String
    /// The watch's key fields; empty when records are identified by their content.
    let key: [FieldPath]
    /// The watched file's path; `nil` when the daemon does not tell it.
    let file: String?
    /// The member of `key` that numbers a repeated key's occurrences: `occurrence`, or with
    /// more underscores where a key field has that name.
    let occurrenceName: String

    init(watch: String, key: [FieldPath], file: String?) {
        self.watch = watch
        self.key = key
        self.file = file
        let spellings = Set(key.map(\.spelling))
        var name = "occurrence"
        while spellings.contains(name) { name += "_" }
        self.occurrenceName = name
    }

    /// What identifies a record, but for its occurrence: its key fields' values, or without a
    /// key its content hash.
    private enum Identity: Hashable {
        case hash(ContentHash)
        case key(ListValue)
    }

    /// One `r` line per record of the list at `cursor`.
    func snapshot(_ sections: [MirroredSection], sectioned: Bool, cursor: Cursor) -> [UInt8] {
        let now = Self.milliseconds()
        var lines: [UInt8] = []
        var occurrences: [Identity: Int] = [:]
        for section in sections {
            let name = sectioned ? section.model.model.text : nil
            for record in section.records {
                let identity = self.identity(of: record)
                let occurrence = occurrences[identity, default: 0]
                occurrences[identity] = occurrence + 1
                lines += self.line(op: "r", before: nil, after: (record.value, name), key: self.key(identity, occurrence), cursor: cursor, sectioned: sectioned, at: now)
            }
        }
        return lines
    }

    /// One line per record occurrence that `edits` (which turn `previous` into `next`) create,
    /// change (in value or section) or delete: for each key the edits touch, in the order they
    /// are first touched, its occurrences in `previous` and `next` compared one by one.
    ///
    /// - Complexity: O(size of `previous` and `next`).
    func changeset(_ edits: [ListEdit], from previous: [MirroredSection], to next: [MirroredSection], sectioned: Bool, cursor: Cursor) -> [UInt8] {
        var touched: [Identity] = []
        var seen: Set<Identity> = []
        var renamed = false
        func touch(_ record: ChangesetStage.Record) {
            let identity = self.identity(of: record)
            if seen.insert(identity).inserted { touched.append(identity) }
        }
        for edit in edits {
            switch edit {
            case .update(_, _, let before, let after):
                touch(before)
                touch(after)
            case .removeRecord(_, _, let record), .addRecord(_, _, let record):
                touch(record)
            case .removeSection(_, let records), .addSection(_, let records):
                records.forEach(touch)
            case .renameSection:
                // Its records stay in it, under its new name: each one's section changes.
                renamed = true
            }
        }
        if renamed {
            // Every record of a renamed section changes section; find them by comparing all.
            for section in previous { section.records.forEach(touch) }
        }
        let before = self.occurrences(of: seen, in: previous, sectioned: sectioned)
        let after = self.occurrences(of: seen, in: next, sectioned: sectioned)
        let now = Self.milliseconds()
        var lines: [UInt8] = []
        for identity in touched {
            let old = before[identity] ?? []
            let new = after[identity] ?? []
            for occurrence in 0..<max(old.count, new.count) {
                let was = occurrence < old.count ? old[occurrence] : nil
                let will = occurrence < new.count ? new[occurrence] : nil
                let op: String
                switch (was, will) {
                case (nil, nil): continue
                case (nil, _): op = "c"
                case (_, nil): op = "d"
                case (let was?, let will?):
                    guard was.0 != will.0 || was.1 != will.1 else { continue }
                    op = "u"
                }
                lines += self.line(op: op, before: was, after: will, key: self.key(identity, occurrence), cursor: cursor, sectioned: sectioned, at: now)
            }
        }
        return lines
    }

    /// For each identity of `identities`, its records in `sections`, in list order: value and
    /// section name.
    private func occurrences(of identities: Set<Identity>, in sections: [MirroredSection], sectioned: Bool) -> [Identity: [(ListValue, String?)]] {
        var found: [Identity: [(ListValue, String?)]] = [:]
        guard !identities.isEmpty else { return found }
        for section in sections {
            let name = sectioned ? section.model.model.text : nil
            for record in section.records {
                let identity = self.identity(of: record)
                if identities.contains(identity) { found[identity, default: []].append((record.value, name)) }
            }
        }
        return found
    }

    private func identity(of record: ChangesetStage.Record) -> Identity {
        guard !self.key.isEmpty else { return .hash(record.hash) }
        return .key(.object(self.key.map { field in
            .init(name: field.spelling, value: record.value[member: field.spelling] ?? field.value(in: record.value) ?? .null)
        }))
    }

    /// The `key` of occurrence `occurrence` (from 0) of `identity`.
    private func key(_ identity: Identity, _ occurrence: Int) -> ListValue {
        var members: [ListValue.Member]
        switch identity {
        case .hash(let hash): members = [.init(name: "hash", value: .string(hash.description))]
        case .key(let value):
            guard case .object(let fields) = value else { return value }
            members = fields
        }
        if occurrence > 0 { members.append(.init(name: self.occurrenceName, value: .number(String(occurrence)))) }
        return .object(members)
    }

    private func line(
        op: String, before: (ListValue, String?)?, after: (ListValue, String?)?, key: ListValue, cursor: Cursor, sectioned: Bool, at now: Int
    ) -> [UInt8] {
        var members: [ListValue.Member] = [
            .init(name: "op", value: .string(op)),
            .init(name: "before", value: before?.0 ?? .null),
            .init(name: "after", value: after?.0 ?? .null),
            .init(name: "key", value: key),
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
