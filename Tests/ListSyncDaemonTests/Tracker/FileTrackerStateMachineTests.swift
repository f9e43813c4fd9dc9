import DurableFiles
@testable import FileWatching
import ListDiff
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

@Suite struct FileTrackerStateMachineTests {
    static let options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"], sectionBy: "group")
    static let identity = FileIdentity(fileID: FileID(device: 1, inode: 1), size: 0, modificationTime: .zero, statusChangeTime: .zero)

    static func present(_ text: String) -> Result<FileSnapshot, FileReadError> {
        .success(.present(bytes: FileBytes(Array(text.utf8)), identity: Self.identity))
    }

    static let version0 = "id,group,name\n1,a,one\n2,b,two\n3,a,three\n"
    static let version1 = "id,group,name\n3,a,three!\n1,a,one\n4,c,four\n"

    var machine = FileTracker.StateMachine(watch: "w", epoch: Epoch(rawValue: 7))

    /// The changeset message a publication carries.
    static func changeset(_ publication: WatchPublication?) throws -> ChangesetMessage {
        let line = try #require(publication?.changesetLine).array
        guard case .changeset(let changeset) = try MessageParser.serverMessage(ofLine: line.dropLast()) else {
            throw TestFailure(description: "not a changeset line")
        }
        return changeset
    }

    /// A mirror of `version`, as its snapshot would build it.
    static func mirror(of version: WatchVersion) throws -> TestMirror {
        var encoder = SnapshotEncoder(
            watch: "w", cursor: Cursor(epoch: Epoch(rawValue: 7), seq: version.seq), list: version.list,
            digest: version.digest)
        var chunks: [SnapshotChunk] = []
        while let line = encoder.nextChunk() {
            guard case .snapshot(let chunk) = try MessageParser.serverMessage(ofLine: line.dropLast()) else { throw TestFailure(description: "not a snapshot") }
            chunks.append(chunk)
        }
        return try TestMirror(snapshot: chunks, digestVersion: .v2)
    }

    @Test mutating func theFirstVersionIsLiveWithoutAChangeset() throws {
        let publication = self.machine.ingest(Self.present(Self.version0), options: Self.options)
        #expect(publication?.version?.seq == 0)
        #expect(publication?.version?.rowCount == 3)
        #expect(publication?.changesetLine == nil)
        #expect(publication?.status == StatusMessage(watch: "w", state: .ok))
        guard case .live = self.machine.state else { throw TestFailure(description: "not live") }
    }

    @Test mutating func theSameBytesAgainPublishNothing() {
        _ = self.machine.ingest(Self.present(Self.version0), options: Self.options)
        #expect(self.machine.ingest(Self.present(Self.version0), options: Self.options) == nil)
    }

    @Test mutating func aNewVersionIsOneSectionedChangesetWithTheNextSeq() throws {
        let first = try #require(self.machine.ingest(Self.present(Self.version0), options: Self.options)?.version)
        let publication = self.machine.ingest(Self.present(Self.version1), options: Self.options)
        let changeset = try Self.changeset(publication)
        #expect(changeset.cursor == Cursor(epoch: Epoch(rawValue: 7), seq: 1))
        #expect(changeset.prevSeq == 0)
        #expect(changeset.schema == nil)
        #expect(publication?.status == nil, "still ok")
        var mirror = try Self.mirror(of: first)
        try mirror.apply(changeset)
        let target = try ListReader(options: Self.options).read(bytes: Array(Self.version1.utf8))
        #expect(mirror.document == target.document)
        #expect(changeset.digest == publication?.version?.digest)
    }

    @Test mutating func equalContentInOtherBytesPublishesNoChangeset() throws {
        let first = try #require(self.machine.ingest(Self.present(Self.version0), options: Self.options)?.version)
        // Quoting does not change content.
        let publication = self.machine.ingest(Self.present("id,group,name\n\"1\",a,one\n2,\"b\",two\n3,a,three\n"), options: Self.options)
        // Nothing to publish: the version subscribers have stays live, bytes and all.
        #expect(publication == nil)
        guard case .live(let live) = self.machine.state else {
            Issue.record("not live")
            return
        }
        #expect(live === first)
    }

    /// An edit of an ignored field alone publishes nothing, and the live version keeps the values
    /// that were published (issue 10 item 2: snapshots equal mirrors).
    @Test mutating func anIgnoredFieldAlonePublishesNothing() throws {
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"], ignore: ["updated_at"])
        let first = try #require(self.machine.ingest(Self.present("id,name,updated_at\n1,a,monday\n"), options: options)?.version)
        #expect(self.machine.ingest(Self.present("id,name,updated_at\n1,a,tuesday\n"), options: options) == nil)
        guard case .live(let live) = self.machine.state else {
            Issue.record("not live")
            return
        }
        #expect(live === first)
        #expect(live.list.values == [.object([.init(name: "id", value: .string("1")), .init(name: "name", value: .string("a"))])])
        #expect(live.list.schema.columns == ["id", "name"])
    }

    @Test mutating func aSchemaChangeIsPublishedWithItsChangeset() throws {
        let first = try #require(self.machine.ingest(Self.present(Self.version0), options: Self.options)?.version)
        let changeset = try Self.changeset(self.machine.ingest(Self.present("id,group,label\n1,a,one\n2,b,two\n3,a,three\n"), options: Self.options))
        #expect(changeset.cursor.seq == first.seq + 1)
        #expect(changeset.schema?.schema.columns == ["id", "group", "label"])
        #expect(changeset.schema?.change.renamed == [SchemaChange.Rename(from: "name", to: "label")])
    }

    @Test mutating func invalidContentKeepsTheLastGoodVersionAndTheNextValidOneIsDiffedAgainstIt() throws {
        let first = try #require(self.machine.ingest(Self.present(Self.version0), options: Self.options)?.version)
        let invalid = self.machine.ingest(Self.present("id,group,name\n1,a,\"one\n"), options: Self.options)
        #expect(invalid?.version == nil)
        #expect(invalid?.status?.state == .invalid)
        #expect(invalid?.status?.error?.position == SourcePosition(line: 2, column: 5, byteOffset: 18))
        guard case .invalid(let lastGood, _, _) = self.machine.state else { throw TestFailure(description: "not invalid") }
        #expect(lastGood === first)
        // The same invalid bytes again change nothing; other invalid bytes publish their error.
        #expect(self.machine.ingest(Self.present("id,group,name\n1,a,\"one\n"), options: Self.options) == nil)
        let other = self.machine.ingest(Self.present("id,group,name\n1,a\n"), options: Self.options)
        #expect(other?.status?.error?.position?.line == 2)

        let recovered = self.machine.ingest(Self.present(Self.version1), options: Self.options)
        #expect(recovered?.status == StatusMessage(watch: "w", state: .ok))
        let changeset = try Self.changeset(recovered)
        #expect(changeset.prevSeq == 0)
        var mirror = try Self.mirror(of: first)
        try mirror.apply(changeset)
        #expect(mirror.document == (try ListReader(options: Self.options).read(bytes: Array(Self.version1.utf8)).document))
    }

    /// `text` read as a version that shares stretches with another holds it: in pieces of
    /// two storages, one piece per `step` bytes.
    static func presentInPieces(_ text: String, step: Int) -> Result<FileSnapshot, FileReadError> {
        let bytes = Array(text.utf8)
        let other = bytes.map { $0 }
        let pieces = stride(from: 0, to: bytes.count, by: step).enumerated().map { index, start in
            FileBytes.Piece(storage: index % 2 == 0 ? bytes : other, range: start..<min(bytes.count, start + step))
        }
        return .success(.present(bytes: FileBytes(pieces: pieces), identity: Self.identity))
    }

    /// The tracker's byte comparisons take bytes in pieces as the bytes they are: the last good
    /// version's bytes in other pieces publish nothing, nor do the same invalid bytes in other
    /// pieces; a byte changed in one piece is a new version.
    @Test mutating func bytesInPiecesCompareAsTheirBytes() throws {
        _ = try #require(self.machine.ingest(Self.present(Self.version0), options: Self.options)?.version)
        for step in [1, 5, 16] {
            #expect(self.machine.ingest(Self.presentInPieces(Self.version0, step: step), options: Self.options) == nil, "pieces of \(step)")
        }
        let invalid = "id,group,name\n1,a,\"one\n"
        #expect(self.machine.ingest(Self.presentInPieces(invalid, step: 3), options: Self.options)?.status?.state == .invalid)
        #expect(self.machine.ingest(Self.presentInPieces(invalid, step: 7), options: Self.options) == nil)
        #expect(self.machine.ingest(Self.present(invalid), options: Self.options) == nil)
        let changed = self.machine.ingest(Self.presentInPieces("id,group,name\n1,a,one\n2,b,twO\n3,a,three\n", step: 4), options: Self.options)
        #expect(changed?.version?.seq == 1 && changed?.status?.state == .ok)
    }

    @Test mutating func theLastGoodContentAfterAnInvalidOneRestoresOkWithoutAChangeset() {
        _ = self.machine.ingest(Self.present(Self.version0), options: Self.options)
        _ = self.machine.ingest(Self.present("garbage\n\"\n"), options: Self.options)
        let back = self.machine.ingest(Self.present(Self.version0), options: Self.options)
        #expect(back?.status?.state == .ok)
        #expect(back?.version == nil)
    }

    @Test mutating func aMissingFileKeepsTheListAndItsReturnIsDiffed() throws {
        let first = try #require(self.machine.ingest(Self.present(Self.version0), options: Self.options)?.version)
        let missing = self.machine.ingest(.success(.missing), options: Self.options)
        #expect(missing?.status?.state == .missing)
        #expect(missing?.version == nil)
        guard case .missing(let lastGood) = self.machine.state else { throw TestFailure(description: "not missing") }
        #expect(lastGood === first)
        #expect(self.machine.ingest(.success(.missing), options: Self.options) == nil)
        let back = self.machine.ingest(Self.present(Self.version1), options: Self.options)
        #expect(back?.status?.state == .ok)
        #expect(try Self.changeset(back).prevSeq == 0)
    }

    @Test mutating func aFileMissingFromTheStartHasNoVersionUntilItAppears() {
        let missing = self.machine.ingest(.success(.missing), options: Self.options)
        #expect(missing?.status?.state == .missing)
        let appeared = self.machine.ingest(Self.present(Self.version0), options: Self.options)
        #expect(appeared?.version?.seq == 0)
        #expect(appeared?.changesetLine == nil)
    }

    @Test mutating func anUnstableReadWaitsForTheNextAnnouncement() {
        #expect(self.machine.ingest(.failure(.unstable(path: "/x", attempts: 5)), options: Self.options) == nil)
        guard case .loading = self.machine.state else {
            Issue.record("left loading")
            return
        }
    }

    @Test mutating func anUnreadableFileIsInvalidWithTheReason() {
        let publication = self.machine.ingest(.failure(.notARegularFile(path: "/x")), options: Self.options)
        #expect(publication?.status == StatusMessage(watch: "w", state: .invalid, error: WatchProblem(message: "/x: not a regular file")))
    }
}
