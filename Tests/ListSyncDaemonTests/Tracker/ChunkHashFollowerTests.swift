import FileWatching
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Logging
import NIOPosix
import Testing
@testable import ListSyncDaemon

/// The tracker's read takes the reader's chunk hashes as the file's bytes come in
/// (``ChunkHashFollower``), and the state machine's reader uses them: after a one-row edit the
/// search for the chunks kept hashes nothing once the read is done, and the version published is
/// the one a machine that hashes after the read publishes.
@Suite struct ChunkHashFollowerTests {
    static func file(editing edited: Int?, format: WatchConfiguration.Format) -> String {
        let rows = (0..<4_000).map { row in
            let name = row == edited ? "edited row \(row)" : "row \(row)"
            return format == .csv ? "\(row),\(name)\n" : #"{"id":\#(row),"name":"\#(name)"}"# + "\n"
        }
        return (format == .csv ? "id,name\n" : "") + rows.joined()
    }

    @Test(arguments: [WatchConfiguration.Format.csv, .ndjson])
    func aOneRowEditIsHashedAsTheTrackerReadsIt(format: WatchConfiguration.Format) async throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path(format == .csv ? "list.csv" : "list.ndjson")
        let watch = WatchConfiguration(name: "w", path: path, format: format, key: ["id"])
        let feed = WatchFeed(watch: watch, epoch: Epoch(rawValue: 1), historyLength: 10)
        let store = WatchStateStore(
            stateDirectory: scratch.path("state"), name: "w", historyLength: 10, crashPoints: .none, isPersistent: false)
        let tracker = FileTracker(watch: watch, feed: feed, store: store, logger: Logger(label: "test"))
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        let options = watch.readOptions
        var machine = FileTracker.StateMachine(watch: "w", epoch: Epoch(rawValue: 7), chunkSize: 1024)
        var unfollowed = FileTracker.StateMachine(watch: "w", epoch: Epoch(rawValue: 7), chunkSize: 1024)

        for edited in [nil, 1_000, 3_000] as [Int?] {
            try FileOperations.write(Self.file(editing: edited, format: format), to: path)
            let hashes = machine.hashesWhileReading(options: options)
            #expect((hashes == nil) == (edited == nil), "the first read has nothing to hash")
            let read = try await tracker.read(watch, check: nil, completeLinesOnly: false, hashes: hashes, pool: pool)
            let publication = machine.ingest(read.content, options: options, hashes: read.hashes)
            let expected = unfollowed.ingest(.success(try FileSnapshot.read(atPath: path)), options: options)
            #expect(publication?.changesetLine == expected?.changesetLine)
            #expect(machine.state.lastGood?.list.bytes == unfollowed.state.lastGood?.list.bytes)
            guard edited != nil else { continue }
            let statistics = try #require(machine.lastRead)
            #expect(statistics.wasIncremental)
            #expect(statistics.chunkHashesFromRead >= statistics.keptChunkCount)
            #expect(statistics.bytesHashedForKeptChunks == 0)
            #expect(try #require(unfollowed.lastRead).bytesHashedForKeptChunks > 0)
        }
    }
}
