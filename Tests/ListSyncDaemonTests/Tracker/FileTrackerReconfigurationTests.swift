import ListDiff
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

/// The state machine when a reload changes the options a file is read with, and the warnings it
/// publishes in the status.
@Suite struct FileTrackerReconfigurationTests {
    typealias Machine = FileTrackerStateMachineTests
    static let options = Machine.options
    static let epoch = Epoch(rawValue: 7)

    var machine = FileTracker.StateMachine(watch: "w", epoch: Self.epoch)

    @Test mutating func theSameBytesWithOtherOptionsAreParsedAgainAndDiffed() throws {
        let firstPublication = self.machine.ingest(Machine.present(Machine.version0), options: Self.options)
        let first = try #require(firstPublication?.version)
        var ignoring = Self.options
        ignoring.ignore = ["name"]
        let publication = self.machine.ingest(Machine.present(Machine.version0), options: ignoring)
        let changeset = try Machine.changeset(publication)
        #expect(changeset.cursor == Cursor(epoch: Self.epoch, seq: first.seq + 1))
        var mirror = try Machine.mirror(of: first)
        try mirror.apply(changeset)
        #expect(mirror.document == (try ListReader(options: ignoring).read(bytes: Array(Machine.version0.utf8)).document))
        // Read again with the same options, the same bytes publish nothing.
        #expect(self.machine.ingest(Machine.present(Machine.version0), options: ignoring) == nil)
    }

    @Test mutating func invalidBytesWithOptionsThatReadThemAreParsedAgain() throws {
        let ragged = "id,group,name\n1,a,one\n2,b\n"
        #expect(self.machine.ingest(Machine.present(ragged), options: Self.options)?.status?.state == .invalid)
        var padding = Self.options
        padding.raggedRows = .pad
        let publication = self.machine.ingest(Machine.present(ragged), options: padding)
        #expect(publication?.version?.seq == 0)
        #expect(publication?.version?.rowCount == 2)
        #expect(publication?.status == StatusMessage(watch: "w", state: .ok))
    }

    @Test mutating func aNewEpochPublishesTheNextVersionWholeUnderItsCursor() throws {
        _ = self.machine.ingest(Machine.present(Machine.version0), options: Self.options)
        let secondPublication = self.machine.ingest(Machine.present(Machine.version1), options: Self.options)
        let second = try #require(secondPublication?.version)
        let newEpoch = Epoch(rawValue: 8)
        self.machine.startEpoch(newEpoch)
        var byName = Self.options
        byName.key = ["name"]
        let read = self.machine.ingest(Machine.present(Machine.version1), options: byName)
        let publication = try #require(read)
        #expect(publication.changesetLine == nil, "no changeset leads to a new epoch")
        #expect(publication.version?.cursor == Cursor(epoch: newEpoch, seq: second.seq + 1))
        #expect(publication.status == nil, "still ok")
        #expect(self.machine.epoch == newEpoch)
        // The epoch carries on with changesets.
        let nextPublication = self.machine.ingest(Machine.present(Machine.version0), options: byName)
        let next = try Machine.changeset(nextPublication)
        #expect(next.cursor == Cursor(epoch: newEpoch, seq: second.seq + 2))
    }

    @Test mutating func aNewEpochWaitsForAVersionThatReadsWhileTheLastGoodOneStaysLive() throws {
        let firstPublication = self.machine.ingest(Machine.present(Machine.version0), options: Self.options)
        let first = try #require(firstPublication?.version)
        self.machine.startEpoch(Epoch(rawValue: 8))
        var unknownKey = Self.options
        unknownKey.key = ["nope"]
        let invalid = self.machine.ingest(Machine.present(Machine.version0), options: unknownKey)
        #expect(invalid?.version == nil)
        #expect(invalid?.status?.state == .invalid)
        #expect(invalid?.status?.error?.message.contains("nope") == true)
        #expect(self.machine.state.lastGood === first)
        #expect(self.machine.epoch == Self.epoch)
        // Back to bytes the last good version was read from, with options it was not: read again.
        var byName = Self.options
        byName.key = ["name"]
        let recoveredPublication = self.machine.ingest(Machine.present(Machine.version0), options: byName)
        let recovered = try #require(recoveredPublication)
        #expect(recovered.version?.cursor == Cursor(epoch: Epoch(rawValue: 8), seq: 1))
        #expect(recovered.status?.state == .ok)
    }

    @Test mutating func repeatedKeysAreAWarningOfTheOkStatus() throws {
        let repeated = "id,group,name\n1,a,one\n2,b,two\n1,a,again\n2,c,too\n"
        let publication = self.machine.ingest(Machine.present(repeated), options: Self.options)
        #expect(publication?.status?.state == .ok)
        #expect(publication?.status?.warnings == [
            WatchProblem(message: "2 records repeat the key of an earlier one; the first is here", position: SourcePosition(line: 4, column: 1, byteOffset: 30))
        ])
        // Unique keys again: the status changes back to a plain ok.
        let fixed = self.machine.ingest(Machine.present(Machine.version0), options: Self.options)
        #expect(fixed?.status == StatusMessage(watch: "w", state: .ok))
        // Without a key, equal records are no mistake.
        var keyless = FileTracker.StateMachine(watch: "w", epoch: Self.epoch)
        let unkeyed = keyless.ingest(Machine.present("id,name\n1,a\n1,a\n"), options: ReadOptions(format: .csv(delimiter: .comma)))
        #expect(unkeyed?.status == StatusMessage(watch: "w", state: .ok))
    }
}
