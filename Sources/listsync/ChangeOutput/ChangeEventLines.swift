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

    /// How many records of the list held (the last snapshot's, or the one ``hold(_:)`` took,
    /// as each changeset since left it) have each identity: what lets a changeset whose keys do
    /// not repeat cost only the records it touches. `nil` before a snapshot or ``hold(_:)``:
    /// each changeset then finds every identity it touches in the lists before and after it.
    private var counts: [Identity: Int]?

    /// Takes `sections` as the list the next changeset applies to (a list restored from a
    /// client's state). O(size), once.
    mutating func hold(_ sections: [MirroredSection]) {
        self.counts = self.walk(sections) { _, _, _, _ in }
    }

    /// One `r` line per record of the list at `cursor`, which becomes the list held.
    mutating func snapshot(_ sections: [MirroredSection], sectioned: Bool, cursor: Cursor) -> [UInt8] {
        let now = Self.milliseconds()
        var lines: [UInt8] = []
        self.counts = self.walk(sections) { section, record, identity, occurrence in
            let name = sectioned ? section.model.model.text : nil
            lines += self.line(op: "r", before: nil, after: (record.value, name), key: self.key(identity, occurrence), cursor: cursor, sectioned: sectioned, at: now)
        }
        return lines
    }

    /// Calls `body` with each record of `sections` in list order, with its section, identity
    /// and occurrence (from 0) of that identity; returns how many records each identity has.
    private func walk(
        _ sections: [MirroredSection], _ body: (MirroredSection, ChangesetStage.Record, Identity, Int) -> Void
    ) -> [Identity: Int] {
        var occurrences: [Identity: Int] = [:]
        for section in sections {
            for record in section.records {
                let identity = self.identity(of: record)
                let occurrence = occurrences[identity, default: 0]
                occurrences[identity] = occurrence + 1
                body(section, record, identity, occurrence)
            }
        }
        return occurrences
    }

    /// What one changeset's edits did to the records of one identity.
    private struct Trace {
        /// Its records in the list before.
        let initial: Int
        /// Its records as the edits so far left the list.
        var count: Int
        /// Whether it ever had more than one record (or the edits contradict the count): its
        /// occurrences must then be found in the lists.
        var repeated: Bool
        /// The record that left first, when that was the identity's first edit: its record
        /// before.
        var before: (ListValue, String?)?
        /// The record that arrived last, unless one left after it: its record after.
        var after: (ListValue, String?)?
        /// Whether an edit touched it yet.
        var edited = false

        init(initial: Int) {
            self.initial = initial
            self.count = initial
            self.repeated = initial > 1
        }
    }

    /// One line per record occurrence that `edits` (which turn `previous` into `next`) create,
    /// change (in value or section) or delete: for each key the edits touch, in the order they
    /// are first touched, its occurrences in `previous` and `next` compared one by one. `next`
    /// becomes the list held.
    ///
    /// While an identity never has more than one record, its edits alternate between a record
    /// leaving and one arriving, so the first leaving is its record before and the last arriving
    /// its record after: no list is read. Only identities with repeated records are looked up in
    /// `previous` and `next` — every identity touched when a section is renamed or no counts are
    /// held (before the first snapshot or ``hold(_:)``: the full path, which the faster one
    /// must equal line for line).
    ///
    /// - Complexity: O(records the edits touch) when no touched key repeats and no section is
    ///   renamed; else O(size of `previous` and `next`).
    mutating func changeset(_ edits: [ListEdit], from previous: [MirroredSection], to next: [MirroredSection], sectioned: Bool, cursor: Cursor) -> [UInt8] {
        var touched: [Identity] = []
        var traces: [Identity: Trace] = [:]
        var renamed = false
        func trace(_ identity: Identity, _ change: (inout Trace) -> Void) {
            if traces[identity] == nil { touched.append(identity) }
            // `counts` read in place: a copy held while it is updated below would copy it all.
            change(&traces[identity, default: Trace(initial: self.counts?[identity] ?? 0)])
        }
        func leave(_ record: ChangesetStage.Record, from section: String?) {
            trace(self.identity(of: record)) { trace in
                if !trace.edited, trace.initial == 1 { trace.before = (record.value, section) }
                trace.edited = true
                trace.after = nil
                trace.count -= 1
                if trace.count < 0 { trace.repeated = true }
            }
        }
        func arrive(_ record: ChangesetStage.Record, in section: String?) {
            trace(self.identity(of: record)) { trace in
                trace.edited = true
                trace.after = (record.value, section)
                trace.count += 1
                if trace.count > 1 { trace.repeated = true }
            }
        }
        for edit in edits {
            switch edit {
            case .update(let section, _, let before, let after):
                leave(before, from: section)
                arrive(after, in: section)
            case .removeRecord(let section, _, let record):
                leave(record, from: section)
            case .addRecord(let section, _, let record):
                arrive(record, in: section)
            case .removeSection(let name, let records):
                records.forEach { leave($0, from: sectioned ? name : nil) }
            case .addSection(let name, let records):
                records.forEach { arrive($0, in: sectioned ? name : nil) }
            case .renameSection:
                // Its records stay in it, under its new name: each one's section changes.
                renamed = true
            }
        }
        if renamed {
            // Every record of a renamed section changes section; find them by comparing all.
            for section in previous {
                for record in section.records { trace(self.identity(of: record)) { _ in } }
            }
        }
        let counted = self.counts != nil
        let full = renamed || !counted
        let looked = Set(touched.filter { full || traces[$0]?.repeated ?? true })
        let before = self.occurrences(of: looked, in: previous, sectioned: sectioned)
        let after = self.occurrences(of: looked, in: next, sectioned: sectioned)
        if counted {
            // A looked-up identity's count is what `next` holds, whatever the edits said.
            for identity in touched {
                let count = looked.contains(identity) ? after[identity]?.count ?? 0 : traces[identity]?.count ?? 0
                self.counts?[identity] = count > 0 ? count : nil
            }
        }
        let now = Self.milliseconds()
        var lines: [UInt8] = []
        for identity in touched {
            let old: [(ListValue, String?)]
            let new: [(ListValue, String?)]
            if looked.contains(identity) {
                old = before[identity] ?? []
                new = after[identity] ?? []
            } else {
                let trace = traces[identity] ?? Trace(initial: 0)
                old = trace.before.map { [$0] } ?? []
                new = trace.count == 1 ? trace.after.map { [$0] } ?? [] : []
            }
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
