import Glibc
import ListFormats
import ListSyncClient
import ListSyncProtocol
import Testing
import ListSyncTestSupport

@testable import ListSyncSink

/// The sink's writes on a real SQLite file: as many rows as records changed, and a table equal
/// to the list after every changeset.
@Suite struct SinkListTests {
    /// Applies each version after the first as a changeset to a sink whose table took the first
    /// as a snapshot, in a real database of `kind`; checks the table against each version and
    /// returns the rows each wrote. Digests are `digestVersion` ones, as the daemon computes them
    /// from scratch; at version 2 the list checks them with its tree, updated incrementally.
    private func sink(
        _ versions: [ParsedList], sectioned: Bool, _ kind: SinkTestDatabaseKind, digestVersion: DigestVersion = .v1
    ) async throws -> [Int] {
        let scratch = try ScratchDirectory(prefix: "listsync-sink")
        let layout = SinkTableLayout(table: "my \"list\"", kind: .json, sectioned: sectioned, key: ["id"])
        let store: any SinkStore
        let database: any SinkTestDatabase
        switch kind {
        case .sqlite:
            store = try SQLiteSinkStore(path: scratch.path + "/db.sqlite", watch: Versions.watch, layout: layout)
            database = SQLiteTestDatabase(path: scratch.path + "/db.sqlite")
        case .postgres:
            let server = try await PostgresServer()
            store = PostgresSinkStore(settings: try PostgresSettings(url: server.url, environment: [:]), watch: Versions.watch, layout: layout)
            database = PostgresTestDatabase(server: server)
        }
        let mirror = try Versions.mirror(of: versions[0], seq: 0, digestVersion: digestVersion)
        var state = SinkState(list: SinkList(snapshot: mirror, cursor: Cursor(epoch: Versions.epoch, seq: 0)))
        try await store.replace(with: mirror, state: state)
        var written: [Int] = []
        for (seq, (old, new)) in zip(versions, versions.dropFirst()).enumerated() {
            let changeset = try Versions.changeset(from: old, to: new, seq: UInt64(seq + 1), digestVersion: digestVersion)
            let writes = try state.list.apply(changeset)
            // At version 2 the digest was checked with the kept tree, equal to the one from scratch.
            #expect((state.list.tree != nil) == (digestVersion == .v2))
            if let tree = state.list.tree {
                #expect(tree.digest == ListDigestTree(schema: state.list.schema, digestSections: state.list.sections).digest)
            }
            try await store.apply(writes, state: state, digest: changeset.digest)
            written.append(writes.rowCount)
            let select = SinkTables.orderedSelect(["listsync_record"], table: layout.table, watch: Versions.watch, sectioned: sectioned)
            let stored = try SinkTables.jsonRecords(try await database.query(select))
            // Compare canonical forms.
            #expect(stored.map(\.contentHash) == new.document.allRecords.map(\.contentHash), "version \(seq + 1)")
            #expect(try await store.storedDigest(schema: state.list.schema, version: state.list.digestVersion) == changeset.digest)
        }
        // Read back from the database, the list resumes where it was.
        var loaded = try #require(try await store.load())
        loaded.list.useDigestVersion(digestVersion)
        #expect(loaded.cursor == state.cursor)
        #expect(loaded.list.digest == state.list.digest)
        return written
    }

    private static func records(_ ids: [Int], group: (Int) -> String = { _ in "a" }, value: (Int) -> Int = { $0 }) -> [(Int, String, Int)] {
        ids.map { ($0, group($0), value($0)) }
    }

    /// One insertion at the top, one move, one update, one deletion of a 5,000-record list each
    /// write one row.
    @Test(arguments: SinkTestDatabaseKind.allCases) func oneChangeWritesOneRow(kind: SinkTestDatabaseKind) async throws {
        let ids = Array(1...5_000)
        let base = Self.records(ids)
        let atTop = Self.records([0] + ids)
        var moved = ids
        moved.insert(moved.remove(at: 2_500), at: 3)
        let updated = Self.records(moved, value: { $0 == 500 ? -1 : $0 })
        let deleted = Self.records(moved.filter { $0 != 7 }, value: { $0 == 500 ? -1 : $0 })
        let versions = try [base, atTop, Self.records(moved), updated, deleted].map { try Versions.read(Versions.json($0)) }
        #expect(try await self.sink(versions, sectioned: false, kind) == [1, 2, 1, 1])
        // At version 2, each digest is checked with the tree, updated around the one change.
        #expect(try await self.sink(versions, sectioned: false, kind, digestVersion: .v2) == [1, 2, 1, 1])
    }

    /// Random versions of a sectioned list — records inserted, deleted, updated, moved within and
    /// across sections, sections appearing and vanishing — leave the table equal to each.
    @Test(arguments: SinkTestDatabaseKind.allCases, [1, 2, 3] as [UInt64])
    func randomVersionsOfASectionedList(kind: SinkTestDatabaseKind, seed: UInt64) async throws {
        var generator = SplitMix(seed: seed)
        var versions: [ParsedList] = []
        for _ in 0..<25 {
            let groups = ["a", "b", "c", "d", "e"].filter { _ in generator.next() % 4 != 0 }
            var records = (0..<60).filter { _ in generator.next() % 3 != 0 }.map { id in
                (id, groups.isEmpty ? "a" : groups[Int(generator.next() % UInt64(groups.count))], Int(generator.next() % 4))
            }
            records.shuffle(using: &generator)
            versions.append(try Versions.read(Versions.json(records), sectioned: true))
        }
        _ = try await self.sink(versions, sectioned: true, kind)
        _ = try await self.sink(versions, sectioned: true, kind, digestVersion: .v2)
    }

    /// Changesets that touch hundreds of rows at once (PostgreSQL writes them in bulk): every
    /// value updated, the order reversed, most records replaced.
    @Test(arguments: SinkTestDatabaseKind.allCases) func changesetsOfManyRows(kind: SinkTestDatabaseKind) async throws {
        let ids = Array(1...300)
        let versions = try [
            Self.records(ids), Self.records(ids, value: { -$0 }), Self.records(ids.reversed(), value: { -$0 }),
            Self.records(Array(ids.reversed().prefix(100)) + Array(1000...1200)),
        ].map { try Versions.read(Versions.json($0)) }
        let written = try await self.sink(versions, sectioned: false, kind)
        #expect(written[0] == 300 && written[2] == 200 + 201 + 100)
    }
}
