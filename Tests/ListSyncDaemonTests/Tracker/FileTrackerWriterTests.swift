import DurableFiles
@testable import FileWatching
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

/// How a tracker treats a file a writer holds: what each request does (``FileTracker/Plan``),
/// the `writing` state, and the complete lines of a file read while written.
@Suite struct FileTrackerWriterTests {
    static let since = ContinuousClock.now

    @Test func aFileAWriterHoldsIsNotReadUnlessTheWatchPublishesWhileWriting() {
        typealias Plan = FileTracker.Plan
        // No writer: every request that reads, reads.
        #expect(Plan(.reread, writer: nil, publishesWhileWriting: false) == .read(check: nil, completeLinesOnly: false))
        #expect(Plan(.announced(nil), writer: nil, publishesWhileWriting: false) == .read(check: nil, completeLinesOnly: false))
        #expect(Plan(.writing, writer: nil, publishesWhileWriting: false) == .nothing)
        // A writer, by default: the status says so, nothing is read — not even for a reload.
        for request in [FileTracker.Request.reread, .writing, .changedWhileWriting] {
            #expect(Plan(request, writer: Self.since, publishesWhileWriting: false) == .noteWriting(since: Self.since))
        }
        // A writer, publishing while writing: read at the writer bound, complete lines only.
        #expect(Plan(.writing, writer: Self.since, publishesWhileWriting: true) == .nothing)
        #expect(Plan(.changedWhileWriting, writer: Self.since, publishesWhileWriting: true) == .read(check: nil, completeLinesOnly: true))
        #expect(Plan(.reread, writer: Self.since, publishesWhileWriting: true) == .read(check: nil, completeLinesOnly: true))
        // The file vanished: read, whoever held it.
        #expect(Plan(.announced(nil), writer: Self.since, publishesWhileWriting: false) == .read(check: nil, completeLinesOnly: false))
    }

    @Test func writingKeepsTheLastVersionLiveUntilTheNextRead() {
        var machine = FileTracker.StateMachine(watch: "w", epoch: Epoch(rawValue: 7))
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"])
        let identity = FileIdentity(fileID: FileID(device: 1, inode: 1), size: 0, modificationTime: .zero, statusChangeTime: .zero)
        let first = machine.ingest(.success(.present(bytes: FileBytes(Array("id\n1\n".utf8)), identity: identity)), options: options)
        let status = machine.noteWriting(since: 1_795_752_012_345)
        #expect(status == StatusMessage(watch: "w", state: .writing, since: 1_795_752_012_345))
        #expect(machine.noteWriting(since: 1_795_752_012_345) == nil, "the same status twice")
        #expect(machine.state.lastGood === first?.version)
        let next = machine.ingest(.success(.present(bytes: FileBytes(Array("id\n1\n2\n".utf8)), identity: identity)), options: options)
        #expect(next?.status == StatusMessage(watch: "w", state: .ok))
        #expect(next?.version?.seq == 1)
    }

    @Test func aFileReadWhileWrittenLosesOnlyItsUnterminatedLastLine() {
        let identity = FileIdentity(fileID: FileID(device: 1, inode: 1), size: 0, modificationTime: .zero, statusChangeTime: .zero)
        func lines(_ text: String) -> FileSnapshot {
            FileSnapshot.present(bytes: FileBytes(Array(text.utf8)), identity: identity).completeLines()
        }
        #expect(lines("id\n1\n4,half-writ") == .present(bytes: FileBytes(Array("id\n1\n".utf8)), identity: identity))
        #expect(lines("id\n1\n") == .present(bytes: FileBytes(Array("id\n1\n".utf8)), identity: identity))
        #expect(lines("id\r\n1\r\n2") == .present(bytes: FileBytes(Array("id\r\n1\r\n".utf8)), identity: identity))
        #expect(lines("no newline yet") == .present(bytes: FileBytes(), identity: identity))
        #expect(FileSnapshot.missing.completeLines() == .missing)
    }
}
