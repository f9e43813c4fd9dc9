import DurableFiles
@testable import FileWatching
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// Issue 19: the reader that read a restored version follows it into the tracker, so that the
/// first version read after a restart re-parses only what changed and shares the restored
/// version's bytes and records, as every later version does; before, a new reader read it whole,
/// beside the restored version (a restarted daemon's peak over the edits that followed was
/// 3.2× the file, against 1.1× after a first load).
struct RestoredReaderTests {
    static let watch = WatchConfiguration(name: "list", path: "/data/list.csv", format: .csv, key: ["sku"])

    static func text(_ rows: Int, edited: Int? = nil) -> String {
        "sku,name,price\n" + (0..<rows).map { "SKU\($0),item \($0),\($0 == edited ? "9.99" : "\($0 % 97).5")\n" }.joined()
    }

    @Test(arguments: [false, true])
    func theFirstVersionAfterARestoreIsReadIncrementallyAndPublishesWhatAWholeReadWould(mapped: Bool) throws {
        let scratch = try ScratchDirectory()
        let options = Self.watch.readOptions
        // The daemon's first life: version 0 read and saved.
        var first = FileTracker.StateMachine(watch: "list", epoch: Epoch(rawValue: 5))
        let firstPublication = first.ingest(FileTrackerStateMachineTests.present(Self.text(20_000)), options: options)
        let loaded = try #require(firstPublication?.version)
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        store.mapsSavedBytes = mapped
        try store.save(loaded, changeset: nil, watch: Self.watch)
        try store.settleLog()

        // The restart.
        var restarted = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        restarted.mapsSavedBytes = mapped
        guard case .restored(let version, _, _) = restarted.restore(for: Self.watch).restoration else {
            throw TestFailure(description: "nothing restored")
        }
        #expect(version.list.fileBytes.holdsMappings == mapped)
        let taken = restarted.takeRestoredReader()
        let reader = try #require(taken)
        let takenAgain = restarted.takeRestoredReader()
        #expect(takenAgain == nil, "the store keeps the reader it handed over")
        var primed = FileTracker.StateMachine(watch: "list", restoring: version, options: options, reader: reader)
        var plain = FileTracker.StateMachine(watch: "list", restoring: version, options: options)
        #expect(primed.sharingSource(options: options) != nil, "no read after the restore can share the restored version's bytes")
        #expect(plain.sharingSource(options: options) == nil)

        let edited = FileTrackerStateMachineTests.present(Self.text(20_000, edited: 12_345))
        let primedPublication = primed.ingest(edited, options: options)
        let plainPublication = plain.ingest(edited, options: options)
        let fromPrimed = try #require(primedPublication)
        let fromPlain = try #require(plainPublication)
        #expect(primed.lastRead?.wasIncremental == true)
        #expect((primed.lastRead?.parsedByteCount ?? .max) < 3 * IncrementalListReader.defaultChunkSize, "\(String(describing: primed.lastRead))")
        #expect(plain.lastRead?.wasIncremental == false)
        #expect(fromPrimed.changesetLine != nil)
        #expect(fromPrimed.changesetLine == fromPlain.changesetLine)
        #expect(fromPrimed.version?.digest == fromPlain.version?.digest)
    }
}
