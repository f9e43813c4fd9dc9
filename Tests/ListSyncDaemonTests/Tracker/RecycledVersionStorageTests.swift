import DurableFiles
import FileWatching
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Logging
import NIOPosix
import Testing
@testable import ListSyncDaemon

/// The storage of retired versions is written into by later reads (the file's bytes, the
/// records), but never while anything still holds that version; and a tracker gives it back once
/// its watch is idle.
@Suite struct RecycledVersionStorageTests {
    static let options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"])

    /// Version `number` of a 3,000-row file: every row's name says the version, so every chunk
    /// differs between versions; odd versions have 10 rows more, so that version n has the
    /// size of version n − 2, whose storage it is read into (nothing to resize first).
    static func file(version number: Int) -> String {
        var text = "id,name,note\n"
        for row in 0..<(3_000 + 10 * (number % 2)) {
            text += row % 7 == 0 ? "\(row),v\(number) row \(row),\"two\nlines\"\n" : "\(row),v\(number) row \(row),plain\n"
        }
        return text
    }

    /// Every field of each record, to compare.
    static func fields(of records: [ListRecord]) -> [String] {
        records.map { "\($0.byteRange) \($0.differenceIdentifier.hash) \($0.contentHash)" }
    }

    /// Where an array's elements are.
    static func address<Element>(of array: [Element]) -> UnsafeRawPointer? {
        array.withUnsafeBytes { $0.baseAddress }
    }

    /// Reads `text` from `path` the way the tracker does: the file into the pool's spare bytes,
    /// the list into its spare records.
    static func read(_ text: String, at path: String, with reader: inout IncrementalListReader, pool: ListBufferPool) throws -> ParsedList {
        try FileOperations.write(text, to: path)
        var spare = pool.takeBytes()
        guard case .present(let fileBytes, _) = try FileSnapshot.read(atPath: path, reusing: &spare) else {
            throw ListSyncTestSupport.TestFailure("\(path) read as missing")
        }
        let bytes = fileBytes.array
        return try reader.read(bytes: bytes, recycling: pool)
    }

    @Test func theUniquenessCheckSeesWhetherAnArrayIsShared() {
        var bytes = [UInt8](repeating: 7, count: 100)
        var records = [ListRecord]()
        records.reserveCapacity(10)
        var empty: [UInt8] = []
        #expect(RecycledArray.isUniquelyReferenced(&bytes))
        #expect(RecycledArray.isUniquelyReferenced(&records))
        #expect(!RecycledArray.isUniquelyReferenced(&empty), "the shared empty storage")
        let shared = bytes
        let sharedRecords = records
        #expect(!RecycledArray.isUniquelyReferenced(&bytes))
        #expect(!RecycledArray.isUniquelyReferenced(&records))
        withExtendedLifetime((shared, sharedRecords)) {}
    }

    @Test func aVersionStillHeldIsNeverOverwrittenByLaterReads() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path("list.csv")
        let pool = ListBufferPool()
        var reader = IncrementalListReader(options: Self.options, chunkSize: 1024)

        let first = try Self.read(Self.file(version: 1), at: path, with: &reader, pool: pool)
        // Copies of what version 1 holds, in storage of their own.
        let firstBytes = first.bytes.map { $0 }
        let firstRecords = Self.fields(of: first.records)
        let firstValues = first.values
        #expect(firstBytes == Array(Self.file(version: 1).utf8))

        var storage: [Int: (bytes: UnsafeRawPointer?, records: UnsafeRawPointer?)] = [:]
        for number in 2...6 {
            let text = Self.file(version: number)
            let list = try Self.read(text, at: path, with: &reader, pool: pool)
            // Each version reads as one pass of the file does.
            let expected = try ListReader(options: Self.options).read(bytes: Array(text.utf8))
            #expect(list.bytes == Array(text.utf8), "version \(number)")
            #expect(Self.fields(of: list.records) == Self.fields(of: expected.records), "version \(number)")
            #expect(list.values == expected.values, "version \(number)")
            storage[number] = (Self.address(of: list.bytes), Self.address(of: list.records))
            // Version 1, held here all along, is what it was.
            #expect(first.bytes == firstBytes, "version 1's bytes after reading version \(number)")
            #expect(Self.fields(of: first.records) == firstRecords, "version 1's records after reading version \(number)")
            #expect(first.values == firstValues, "version 1's values after reading version \(number)")
            #expect(Self.address(of: list.bytes) != Self.address(of: first.bytes))
            #expect(Self.address(of: list.records) != Self.address(of: first.records))
        }
        // The versions nothing held any more were written into: version n's storage is version n − 2's.
        for number in 4...6 {
            #expect(storage[number]?.bytes == storage[number - 2]?.bytes, "version \(number)'s bytes")
            #expect(storage[number]?.records == storage[number - 2]?.records, "version \(number)'s records")
        }
    }

    @Test func aTrackerReleasesTheStorageItKeptOnceItsWatchIsIdle() async throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path("list.csv")
        try FileOperations.write(Self.file(version: 1), to: path)
        let watch = WatchConfiguration(name: "w", path: path, format: .csv, key: ["id"])
        let feed = WatchFeed(watch: watch, epoch: Epoch(rawValue: 1), historyLength: 10)
        let store = WatchStateStore(
            stateDirectory: scratch.path("state"), name: "w", historyLength: 10, crashPoints: .none, isPersistent: false)
        let tracker = FileTracker(watch: watch, feed: feed, store: store, bufferIdleDelay: .seconds(2), logger: Logger(label: "test"))
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let running = Task { await tracker.run(pool: pool) }
        defer { tracker.stop() }
        await tracker.waitUntilLoaded()
        for number in 2...3 {
            try FileOperations.write(Self.file(version: number), to: path)
            tracker.readRequests.yield(.reread)
            try await eventually("version \(number - 1) published") { feed.currentVersion?.seq == UInt64(number - 1) }
        }
        // Reading version 3 retired version 2's storage into the pool, for the next read...
        try await eventually("the tracker keeps the retired version's storage", timeout: .seconds(2)) { !tracker.buffers.isEmpty }
        // ...until the watch has been idle for the delay.
        try await eventually("the tracker releases it once idle", timeout: .seconds(20)) { tracker.buffers.isEmpty }
        tracker.stop()
        await running.value
        try await pool.shutdownGracefully()
    }
}
