import DurableFiles
import FileWatching
import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Logging
import NIOPosix
import Testing
@testable import ListSyncDaemon

/// The tracker's sharing read (issue 19): after a version the reader read last, the file is read
/// sharing that version's unchanged ends (``FileTracker/StateMachine/sharingSource(options:)``,
/// ``FileTracker/read(_:check:completeLinesOnly:hashes:unchanged:sharing:pool:)``) and the reader
/// keeps the chunks inside them without hashing. Over long random sequences of versions of every
/// shape — edits, inserts, deletes, moves, appends, truncations, header changes, content-equal
/// saves, invalid versions, the same bytes again, an empty file, a missing file, other options —
/// a machine that reads so publishes at every version exactly what a machine that reads every
/// version whole publishes; sharing serves most one-row edits; the storage its versions keep
/// alive stays bounded by the compaction rule; and a one-row version of a large file costs
/// about a chunk of new memory.
@Suite struct SharingReadTrackerTests {
    /// A list file: its rows, the name of its second column, which rows are spelled another way
    /// with the same content (CSV: the name quoted; JSON: spaces after the colons).
    struct Model {
        var format: WatchConfiguration.Format
        var rows: [(id: Int, name: String)]
        var column = "name"
        var respelled: Set<Int> = []
        var nextID: Int
        /// Sections: CSV rows grouped by a third column (`section_by`), a JSON object of two arrays.
        var sectioned = false

        init(format: WatchConfiguration.Format, count: Int, sectioned: Bool = false) {
            self.format = format
            self.sectioned = sectioned
            self.rows = (0..<count).map { ($0, "row \($0) first name of this row") }
            self.nextID = count
        }

        func line(_ row: (id: Int, name: String)) -> String {
            let other = respelled.contains(row.id)
            switch format {
            case .csv:
                let group = sectioned ? ",g\(row.id % 3)" : ""
                return (other ? "\(row.id),\"\(row.name)\"" : "\(row.id),\(row.name)") + group
            default:
                return other ? #"{"id": \#(row.id), "\#(column)": "\#(row.name)"}"# : #"{"id":\#(row.id),"\#(column)":"\#(row.name)"}"#
            }
        }

        var text: String {
            switch format {
            case .csv: return "id,\(column)\(sectioned ? ",group" : "")\n" + rows.map { line($0) + "\n" }.joined()
            case .json where sectioned:
                let (even, odd) = (rows.filter { $0.id % 2 == 0 }, rows.filter { $0.id % 2 == 1 })
                return "{\n\"even\": [\n" + even.map(line).joined(separator: ",\n") + "\n],\n\"odd\": [\n"
                    + odd.map(line).joined(separator: ",\n") + "\n]\n}\n"
            case .json: return "[\n" + rows.map(line).joined(separator: ",\n") + "\n]\n"
            default: return rows.map { line($0) + "\n" }.joined()
            }
        }

        /// The text with a version that does not parse in it.
        var invalidText: String {
            switch format {
            case .csv: return text + "\(nextID),\"a quote never closed\n"
            case .json: return String(text.dropLast(2))
            default: return text + "{\"id\":\n"
            }
        }

        mutating func newRow(_ generator: inout SplitMix) -> (id: Int, name: String) {
            defer { nextID += 1 }
            return (nextID, "row \(nextID) new \(Int.random(in: 0..<1_000, using: &generator))")
        }
    }

    /// The steps of a random sequence; the first six change rows (sharing should serve them).
    enum Step: CaseIterable {
        case edit, insert, delete, move, append, truncate
        case header, respell, invalid, sameBytes, empty, missing, otherOptions

        var changesRows: Bool { [.edit, .insert, .delete, .move, .append, .truncate].contains(self) }

        static func random(using generator: inout SplitMix) -> Step {
            let roll = Int.random(in: 0..<100, using: &generator)
            switch roll {
            case 0..<30: return .edit
            case 30..<40: return .insert
            case 40..<50: return .delete
            case 50..<58: return .move
            case 58..<66: return .append
            case 66..<72: return .truncate
            case 72..<74: return .header
            case 74..<82: return .respell
            case 82..<87: return .invalid
            case 87..<91: return .sameBytes
            case 91..<93: return .empty
            case 93..<96: return .missing
            default: return .otherOptions
            }
        }
    }

    /// The capacity of the storage arrays `bytes` hold that `before` does not: the new memory of
    /// a version read after `before`.
    static func addedStorage(_ bytes: FileBytes, after before: FileBytes?) -> Int {
        func address(_ piece: FileBytes.Piece) -> UInt { piece.storage.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
        let old = Set((before?.pieces ?? []).map(address))
        var seen = Set<UInt>()
        var total = 0
        for piece in bytes.pieces where !old.contains(address(piece)) && seen.insert(address(piece)).inserted {
            total += piece.storage.capacity
        }
        return total
    }

    /// Writes `text` at `path`: in place (truncated and written) or renamed over it from a
    /// temporary file, as editors save.
    static func save(_ text: String, at path: String, renaming: Bool) throws {
        if renaming {
            try FileOperations.write(text, to: path + ".tmp")
            try FileOperations.rename(path + ".tmp", to: path)
        } else {
            try FileOperations.write(text, to: path)
        }
    }

    final class Harness {
        let scratch: ScratchDirectory
        let path: String
        let watch: WatchConfiguration
        let tracker: FileTracker
        let pool: NIOThreadPool

        init(format: WatchConfiguration.Format, sectionBy: String? = nil) throws {
            scratch = try ScratchDirectory()
            path = scratch.path(format == .csv ? "list.csv" : format == .json ? "list.json" : "list.ndjson")
            watch = WatchConfiguration(name: "w", path: path, format: format, key: ["id"], sectionBy: sectionBy)
            let feed = WatchFeed(watch: watch, epoch: Epoch(rawValue: 1), historyLength: 10)
            let store = WatchStateStore(
                stateDirectory: scratch.path("state"), name: "w", historyLength: 10, crashPoints: .none, isPersistent: false)
            tracker = FileTracker(watch: watch, feed: feed, store: store, logger: Logger(label: "test"))
            pool = NIOThreadPool(numberOfThreads: 1)
            pool.start()
        }

        deinit { pool.shutdownGracefully { _ in } }

        /// The tracker's read of the file as the daemon makes it — sharing what `machine` offers —
        /// taken into `machine`.
        func readSharing(into machine: inout FileTracker.StateMachine, options: ReadOptions) async throws -> (WatchPublication?, FileTracker.FileRead) {
            let read = try await tracker.read(
                watch, check: nil, completeLinesOnly: false, hashes: machine.hashesWhileReading(options: options),
                sharing: machine.sharingSource(options: options), pool: pool)
            return (machine.ingest(read.content, options: options, hashes: read.hashes, shared: read.shared), read)
        }
    }

    @Test(arguments: [
        (WatchConfiguration.Format.csv, false), (.csv, true), (.ndjson, false), (.json, false), (.json, true),
    ])
    func aSharingMachinePublishesWhatAWholeReadingOnePublishes(format: WatchConfiguration.Format, sectioned: Bool) async throws {
        let sectionBy = format == .csv && sectioned ? "group" : nil
        let harness = try Harness(format: format, sectionBy: sectionBy)
        let path = harness.path
        let slack = 4_096
        var generator = SplitMix(seed: 0x5EED_0019 &+ UInt64(format.rawValue.count) &+ (sectioned ? 100 : 0))
        var model = Model(format: format, count: 1_200, sectioned: sectioned)
        let keyed = [
            harness.watch.readOptions, WatchConfiguration(name: "w", path: path, format: format, key: ["name"], sectionBy: sectionBy).readOptions,
        ]
        var keyIndex = 0
        var epoch: UInt64 = 7
        var sharing = FileTracker.StateMachine(watch: "w", epoch: Epoch(rawValue: epoch), chunkSize: 1_024)
        sharing.buffers = harness.tracker.buffers
        sharing.storageSlack = slack
        var whole = FileTracker.StateMachine(watch: "w", epoch: Epoch(rawValue: epoch), chunkSize: 1_024)
        var (eligible, used, compacted, invalid) = (0, 0, 0, 0)
        try Self.save(model.text, at: path, renaming: false)

        for index in 0..<420 {
            let step = index == 0 ? Step.edit : Step.random(using: &generator)
            let label = "\(format) step \(index) \(step)"
            var text: String? = nil
            switch step {
            case .edit where !model.rows.isEmpty:
                let row = Int.random(in: 0..<model.rows.count, using: &generator)
                model.rows[row].name = "row \(model.rows[row].id) edited \(index)"
            case .insert:
                model.rows.insert(model.newRow(&generator), at: Int.random(in: 0...model.rows.count, using: &generator))
            case .delete where model.rows.count > 100:
                model.rows.remove(at: Int.random(in: 0..<model.rows.count, using: &generator))
            case .move where model.rows.count > 100:
                let from = Int.random(in: 0..<model.rows.count, using: &generator)
                let row = model.rows.remove(at: from)
                var to = Int.random(in: 0..<model.rows.count, using: &generator)
                if to == from { to = (to + 1) % model.rows.count }
                model.rows.insert(row, at: to)
            case .append:
                for _ in 0..<Int.random(in: 1...3, using: &generator) { model.rows.append(model.newRow(&generator)) }
            case .truncate where model.rows.count > 100:
                model.rows.removeLast(Int.random(in: 1...5, using: &generator))
            case .header:
                model.column = model.column == "name" ? "title" : "name"
            case .respell where !model.rows.isEmpty:
                let id = model.rows[Int.random(in: 0..<model.rows.count, using: &generator)].id
                if model.respelled.remove(id) == nil { model.respelled.insert(id) }
            case .invalid:
                text = model.invalidText
            case .empty:
                text = ""
            case .otherOptions:
                keyIndex = 1 - keyIndex
                epoch += 1
                sharing.startEpoch(Epoch(rawValue: epoch))
                whole.startEpoch(Epoch(rawValue: epoch))
            default:
                break
            }
            if step == .missing {
                if access(path, F_OK) == 0 { try FileOperations.remove(path) }
            } else {
                try Self.save(text ?? model.text, at: path, renaming: Bool.random(using: &generator))
            }
            let options = keyed[keyIndex]

            let previous = sharing.state.lastGood
            let offered = sharing.sharingSource(options: options) != nil
            if let before = previous?.list.fileBytes, before.storageByteCount > before.count + before.count / 4 + slack {
                #expect(!offered, "\(label): a version over the bound is followed by a whole read")
            }
            let (got, read) = try await harness.readSharing(into: &sharing, options: options)
            let expected = whole.ingest(Result { () throws(FileReadError) in try FileSnapshot.read(atPath: path) }, options: options)

            #expect(got?.changesetLine == expected?.changesetLine, "\(label)")
            #expect(got?.version?.cursor == expected?.version?.cursor, "\(label)")
            #expect(got?.version?.digest == expected?.version?.digest, "\(label)")
            #expect(got?.status == expected?.status, "\(label)")
            #expect(got?.isInvalidRead == expected?.isInvalidRead, "\(label)")
            #expect(sharing.state.lastGood?.cursor == whole.state.lastGood?.cursor, "\(label)")
            #expect(sharing.state.lastGood?.list.fileBytes == whole.state.lastGood?.list.fileBytes, "\(label)")
            if got?.isInvalidRead == true { invalid += 1 }
            if step.changesRows, offered {
                eligible += 1
                if read.shared != nil, sharing.lastRead?.usedSharedEnds == true { used += 1 }
            }
            // The storage the live version keeps alive: never more than a quarter beyond its size
            // (and the slack); a read that shared ends but would keep more is compacted.
            if let now = sharing.state.lastGood, now.cursor != previous?.cursor {
                let bytes = now.list.fileBytes
                #expect(text == nil ? bytes == FileBytes(Array(model.text.utf8)) : true, "\(label): the version is the file")
                #expect(
                    bytes.storageByteCount <= bytes.count + bytes.count / 4 + slack,
                    "\(label): \(bytes.storageByteCount) bytes of storage for \(bytes.count)")
                if let shared = read.shared?.stretches, shared.prefix + shared.suffix > 0, bytes.isContiguous { compacted += 1 }
            }
        }
        #expect(eligible >= 120, "\(format): \(eligible) row changes read after a version that could be shared")
        #expect(used * 10 >= eligible * 8, "\(format): sharing served \(used) of \(eligible) row changes")
        #expect(compacted > 0, "\(format): no version reached the bound, so no compaction was tested")
        #expect(invalid > 0, "\(format): no invalid version")
    }

    /// A read that shared the ends of a version that is no longer the last good one when it is
    /// taken in (another read was taken in first) is read as a whole read would be: its
    /// stretches are that older version's, not the one the reader follows now.
    @Test(arguments: [WatchConfiguration.Format.csv, .ndjson, .json])
    func stretchesSharedWithAReplacedVersionAreNotUsed(format: WatchConfiguration.Format) async throws {
        let harness = try Harness(format: format)
        let options = harness.watch.readOptions
        var model = Model(format: format, count: 600)
        var generator = SplitMix(seed: 19)
        var sharing = FileTracker.StateMachine(watch: "w", epoch: Epoch(rawValue: 7), chunkSize: 1_024)
        var whole = FileTracker.StateMachine(watch: "w", epoch: Epoch(rawValue: 7), chunkSize: 1_024)
        func wholeRead() throws -> Result<FileSnapshot, FileReadError> {
            .success(try FileSnapshot.read(atPath: harness.path))
        }

        try Self.save(model.text, at: harness.path, renaming: false)
        _ = try await harness.readSharing(into: &sharing, options: options)
        _ = whole.ingest(try wholeRead(), options: options)
        // B, read sharing A's ends but not taken in yet.
        model.rows[300].name = "row 300 in version B"
        try Self.save(model.text, at: harness.path, renaming: true)
        let late = try await harness.tracker.read(
            harness.watch, check: nil, completeLinesOnly: false, sharing: sharing.sharingSource(options: options), pool: harness.pool)
        let lateWhole = try wholeRead()
        #expect(late.shared != nil)
        // C — rows inserted before the edit, so B's ends are at other offsets in C — taken in first.
        model.rows[300].name = "row 300 first name of this row"
        model.rows.insert(contentsOf: (0..<40).map { _ in model.newRow(&generator) }, at: 10)
        try Self.save(model.text, at: harness.path, renaming: true)
        _ = try await harness.readSharing(into: &sharing, options: options)
        _ = whole.ingest(try wholeRead(), options: options)
        // Then B.
        let got = sharing.ingest(late.content, options: options, hashes: late.hashes, shared: late.shared)
        let expected = whole.ingest(lateWhole, options: options)
        #expect(sharing.lastRead?.usedSharedEnds == false)
        #expect(got?.changesetLine == expected?.changesetLine)
        #expect(got?.version?.digest == expected?.version?.digest)
        #expect(sharing.state.lastGood?.list.fileBytes == whole.state.lastGood?.list.fileBytes)
    }

    /// A one-row edit in the middle of a 4 MB file: the new version's bytes are the previous
    /// version's two ends and one new array of about a chunk, not a second copy of the file.
    @Test(arguments: [WatchConfiguration.Format.csv, .ndjson])
    func aOneRowVersionOfALargeFileCostsAboutAChunk(format: WatchConfiguration.Format) async throws {
        let harness = try Harness(format: format)
        var model = Model(format: format, count: 110_000)
        let options = harness.watch.readOptions
        var machine = FileTracker.StateMachine(watch: "w", epoch: Epoch(rawValue: 7))
        machine.buffers = harness.tracker.buffers
        try Self.save(model.text, at: harness.path, renaming: false)
        _ = try await harness.readSharing(into: &machine, options: options)
        let first = try #require(machine.state.lastGood)
        #expect(first.list.fileBytes.count >= 4_000_000)

        model.rows[50_000].name = "row 50000 edited"
        try Self.save(model.text, at: harness.path, renaming: true)
        let (publication, read) = try await harness.readSharing(into: &machine, options: options)
        let second = try #require(publication?.version)
        let bytes = second.list.fileBytes
        #expect(bytes == FileBytes(Array(model.text.utf8)))
        #expect(read.shared != nil && machine.lastRead?.usedSharedEnds == true)
        let added = Self.addedStorage(bytes, after: first.list.fileBytes)
        let chunk = IncrementalListReader.defaultChunkSize
        #expect(added > 0 && added <= 3 * chunk, "\(added) bytes of new memory for a one-row edit (chunks of \(chunk))")
        #expect(bytes.storageByteCount <= first.list.fileBytes.storageByteCount + 3 * chunk)
        #expect(try #require(machine.lastRead).copiedByteCount <= 3 * chunk)
        #expect(publication?.changes?.updated == 1)
        // The previous version's array is the new one's storage, not spare memory kept for the
        // next read (the watch's spare-memory gauge counts what the pool holds).
        #expect(harness.tracker.buffers.takeBytes().capacity == 0)
    }
}
