import ListDiff
import ListFormats
import ListSyncClient
import ListSyncProtocol
import PropertyBased
import Testing
import ListSyncTestSupport

@Suite struct MirroredListTests {
    let v0 = Versions.json([(1, "a", 0), (2, "a", 0), (3, "b", 0), (4, "c", 0)])
    /// Updates 2, deletes 3 (and with it section b), moves 4 first, inserts 5 in a new section d.
    let v1 = Versions.json([(4, "c", 0), (1, "a", 0), (2, "a", 9), (5, "d", 1)])

    @Test func aChunkedSnapshotBecomesTheList() throws {
        let list = try Versions.read(v0, sectioned: true)
        let chunks = try Versions.snapshot(list, seq: 7, chunkSize: 1)
        #expect(chunks.count > 2, "the snapshot should arrive in several chunks")
        var mirror = MirroredList(watch: Versions.watch)
        for chunk in chunks.dropLast() {
            #expect(try mirror.apply(chunk) == false)
            #expect(!mirror.hasList, "half a snapshot is never the list")
        }
        #expect(try mirror.apply(try #require(chunks.last)) == true)
        #expect(mirror.document == list.document)
        #expect(mirror.cursor == Cursor(epoch: Versions.epoch, seq: 7))
        #expect(mirror.digest == ListDigest(of: list))
        #expect(mirror.isSectioned && mirror.recordCount == 4)
        #expect(mirror.schema == list.schema)
    }

    @Test(arguments: [false, true]) func changesetsKeepTheMirrorEqualToTheList(sectioned: Bool) throws {
        let old = try Versions.read(v0, sectioned: sectioned)
        let new = try Versions.read(v1, sectioned: sectioned)
        var mirror = try Versions.mirror(of: old, seq: 3)
        try mirror.apply(try Versions.changeset(from: old, to: new, seq: 4))
        #expect(mirror.document == new.document)
        #expect(mirror.cursor == Cursor(epoch: Versions.epoch, seq: 4))
        #expect(mirror.values == new.values)
    }

    /// Random versions of a list, published one after the other: the mirror equals each.
    @Test func aMirrorFollowsRandomVersions() async {
        let version = Generator<[Int], Shrink.None<[Int]>> { rng in
            (0..<Int.random(in: 0...14, using: &rng)).map { _ in Int.random(in: 0..<60, using: &rng) }
        }
        await propertyCheck(count: 200, input: version.array(of: 2...5), Gen.bool) { versions, sectioned in
            #expect(throws: Never.self) {
                // Each number is a record: id = n % 20 (repeats allowed), group = n % 4, value = n / 20.
                let lists = try versions.map { numbers in
                    try Versions.read(Versions.json(numbers.map { ($0 % 20, ["a", "b", "c", "d"][$0 % 4], $0 / 20) }), sectioned: sectioned)
                }
                var mirror = try Versions.mirror(of: lists[0], seq: 0)
                for seq in 1..<lists.count {
                    try mirror.apply(try Versions.changeset(from: lists[seq - 1], to: lists[seq], seq: UInt64(seq)))
                    #expect(mirror.document == lists[seq].document)
                }
            }
        }
    }

    /// A long list edited a few records at a time — inserted, deleted, moved, updated, across
    /// sections too — which the mirror applies in place rather than by rebuilding sections: it
    /// equals each version.
    @Test func aMirrorFollowsSmallEditsOfALongList() async {
        // Each edit: (kind 0 insert, 1 delete, 2 move, 3 update; two positions as fractions of the length).
        let edits = Generator<[(Int, Double, Double)], Shrink.None<[(Int, Double, Double)]>> { rng in
            (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                (Int.random(in: 0..<4, using: &rng), Double.random(in: 0..<1, using: &rng), Double.random(in: 0..<1, using: &rng))
            }
        }
        await propertyCheck(count: 200, input: edits.array(of: 1...4), Gen.bool) { versions, sectioned in
            #expect(throws: Never.self) {
                // Record (id, group, value); ids unique so that every edit is one change.
                var records = (0..<120).map { ($0, ["a", "b", "c"][$0 % 3], 0) }
                var next = 1000
                var list = try Versions.read(Versions.json(records), sectioned: sectioned)
                var mirror = try Versions.mirror(of: list, seq: 0)
                for (seq, version) in versions.enumerated() {
                    for (kind, first, second) in version {
                        let at = Int(first * Double(records.count))
                        switch kind {
                        case 0:
                            records.insert((next, ["a", "b", "c"][next % 3], 0), at: at)
                            next += 1
                        case 1: records.remove(at: at)
                        case 2:
                            let moved = records.remove(at: at)
                            records.insert(moved, at: Int(second * Double(records.count)))
                        default: records[at].2 += 1
                        }
                    }
                    let new = try Versions.read(Versions.json(records), sectioned: sectioned)
                    try mirror.apply(try Versions.changeset(from: list, to: new, seq: UInt64(seq + 1)))
                    #expect(mirror.document == new.document)
                    list = new
                }
            }
        }
    }

    @Test func aDigestMismatchLeavesTheMirrorAtItsVerifiedVersion() throws {
        let old = try Versions.read(v0, sectioned: true)
        let new = try Versions.read(v1, sectioned: true)
        var mirror = try Versions.mirror(of: old, seq: 3)
        var changeset = try Versions.changeset(from: old, to: new, seq: 4)
        changeset.digest = ListDigest(of: old)
        #expect {
            try mirror.apply(changeset)
        } throws: { error in
            guard let error = error as? MirrorError, error.code == .digestMismatch else { return false }
            return error.recovery == .freshSnapshot
        }
        #expect(mirror.document == old.document)
        #expect(mirror.cursor == Cursor(epoch: Versions.epoch, seq: 3))
        #expect(mirror.digest == ListDigest(of: old))
    }

    @Test func aGapInSequenceNumbersAsksToResume() throws {
        let old = try Versions.read(v0)
        let new = try Versions.read(v1)
        var mirror = try Versions.mirror(of: old, seq: 3)
        // The changeset after the one the mirror missed.
        let changeset = try Versions.changeset(from: old, to: new, seq: 5)
        #expect {
            try mirror.apply(changeset)
        } throws: { error in
            (error as? MirrorError) == .sequenceGap(mirror: Cursor(epoch: Versions.epoch, seq: 3), changeset: changeset.cursor, prevSeq: 4)
                && (error as? MirrorError)?.recovery == .resume
        }
        #expect(mirror.document == old.document)
    }

    @Test func aChangesetFromAnotherHistoryIsRefused() throws {
        let old = try Versions.read(v0)
        var mirror = try Versions.mirror(of: old, seq: 3)
        var changeset = try Versions.changeset(from: old, to: try Versions.read(v1), seq: 4)
        changeset.cursor.epoch = Epoch(rawValue: 1)
        #expect(throws: MirrorError.epochMismatch(mirror: Cursor(epoch: Versions.epoch, seq: 3), changeset: changeset.cursor)) {
            try mirror.apply(changeset)
        }
    }

    /// Stage 1 applies, stage 2 names a record that is not there: the whole changeset is undone.
    @Test func aStageThatDoesNotFitIsRolledBack() throws {
        let old = try Versions.read(v0, sectioned: true)
        var mirror = try Versions.mirror(of: old, seq: 1)
        let record = ChangesetStage.Record(value: .string("x"), hash: ListValue.string("x").contentHash)
        let changeset = ChangesetMessage(
            watch: Versions.watch, cursor: Cursor(epoch: Versions.epoch, seq: 2), prevSeq: 1,
            stages: [
                ChangesetStage(elementUpdated: [ChangesetStage.PlacedRecord(path: ElementPath(element: 0, section: 0), record: record)]),
                ChangesetStage(elementDeleted: [ElementPath(element: 1, section: 0)], elementInserted: [
                    ChangesetStage.PlacedRecord(path: ElementPath(element: 5, section: 1), record: record)
                ]),
            ],
            digest: ListDigest(of: old), schema: nil)
        #expect {
            try mirror.apply(changeset)
        } throws: { error in
            guard let error = error as? MirrorError, error.code == .invalidStage, let stage = error.stage else { return false }
            return stage == 1
        }
        #expect(mirror.document == old.document)
        mirror._checkInvariants()
    }

    @Test func positionsNamedTwiceOrOutOfRangeAreRefused() throws {
        let old = try Versions.read(v0)
        let cursor = Cursor(epoch: Versions.epoch, seq: 2)
        let path = ElementPath(element: 1, section: 0)
        let bad: [ChangesetStage] = [
            ChangesetStage(elementDeleted: [path, path]),
            ChangesetStage(elementDeleted: [ElementPath(element: 4, section: 0)]),
            ChangesetStage(elementMoved: [ChangesetStage.Move(source: path, target: ElementPath(element: 9, section: 0))]),
            ChangesetStage(sectionDeleted: [0]),
        ]
        for stage in bad {
            var mirror = try Versions.mirror(of: old, seq: 1)
            let changeset = ChangesetMessage(
                watch: Versions.watch, cursor: cursor, prevSeq: 1, stages: [stage], digest: ListDigest(of: old), schema: nil)
            #expect(throws: MirrorError.self) { try mirror.apply(changeset) }
            #expect(mirror.document == old.document)
        }
    }

    @Test func snapshotChunksOutOfOrderAreRefusedAndTheListKept() throws {
        let old = try Versions.read(v0)
        let new = try Versions.read(v1)
        var mirror = try Versions.mirror(of: old, seq: 1)
        let chunks = try Versions.snapshot(new, seq: 2, chunkSize: 1)
        try mirror.apply(chunks[0])
        #expect(throws: MirrorError.self) { try mirror.apply(chunks[2]) }
        #expect(mirror.document == old.document)
        // The next complete snapshot is taken whole.
        for chunk in chunks { try mirror.apply(chunk) }
        #expect(mirror.document == new.document)
        // A chunk without its chunk 0.
        #expect(throws: MirrorError.self) { try mirror.apply(chunks[1]) }
    }

    @Test func aSnapshotWithTheWrongDigestIsRefused() throws {
        let old = try Versions.read(v0)
        var mirror = try Versions.mirror(of: old, seq: 1)
        var chunks = try Versions.snapshot(try Versions.read(v1), seq: 2)
        chunks[chunks.count - 1].digest = ListDigest(of: old)
        #expect {
            for chunk in chunks { try mirror.apply(chunk) }
        } throws: { error in
            guard (error as? MirrorError)?.code == .digestMismatch else { return false }
            return true
        }
        #expect(mirror.document == old.document && mirror.cursor?.seq == 1)
    }

    @Test func aMirrorFromACursorFollowsSequenceNumbersUntilASnapshot() throws {
        let old = try Versions.read(v0)
        let new = try Versions.read(v1)
        var mirror = MirroredList(watch: Versions.watch, following: Cursor(epoch: Versions.epoch, seq: 3))
        #expect(!mirror.hasList)
        try mirror.apply(try Versions.changeset(from: old, to: new, seq: 4))
        #expect(mirror.cursor?.seq == 4 && !mirror.hasList)
        #expect(throws: MirrorError.self) { try mirror.apply(try Versions.changeset(from: old, to: new, seq: 6)) }
        for chunk in try Versions.snapshot(new, seq: 4) { try mirror.apply(chunk) }
        #expect(mirror.hasList && mirror.document == new.document)
        #expect(throws: MirrorError.noBase(changeset: Cursor(epoch: Versions.epoch, seq: 1))) {
            var empty = MirroredList(watch: Versions.watch)
            try empty.apply(try Versions.changeset(from: old, to: new, seq: 1))
        }
    }

    @Test func aChangedHeaderComesWithTheChangeset() throws {
        let csv = ReadOptions(format: .csv(delimiter: .comma), key: ["id"])
        let old = try ListReader(options: csv).read(bytes: Array("id,name\n1,a\n2,b\n".utf8))
        let new = try ListReader(options: csv).read(bytes: Array("id,name,price\n1,a,3\n2,b,4\n".utf8))
        var mirror = try Versions.mirror(of: old, seq: 1)
        try mirror.apply(try Versions.changeset(from: old, to: new, seq: 2))
        #expect(mirror.schema.columns == ["id", "name", "price"])
        #expect(mirror.document == new.document)
        #expect(ListWriter(format: .csv(delimiter: .comma), columns: mirror.schema.columns).write(mirror.document) == new.bytes)
    }

    @Test func statusesAreRecordedAndOtherWatchesRefused() throws {
        var mirror = MirroredList(watch: Versions.watch)
        let problem = WatchProblem(message: "quoted field is never closed", position: SourcePosition(line: 3, column: 9, byteOffset: 40))
        try mirror.apply(StatusMessage(watch: Versions.watch, state: .invalid, error: problem))
        #expect(mirror.watchState == .invalid && mirror.watchProblem == problem)
        #expect(throws: MirrorError.wrongWatch(expected: Versions.watch, received: "other")) {
            try mirror.apply(StatusMessage(watch: "other", state: .ok))
        }
    }
}
