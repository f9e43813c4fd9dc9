import DurableFiles
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

/// The state store takes a version's bytes as ``FileBytes``: a version read after a small change
/// holds the stretches it shares with the version before as slices of that version's storage.
/// Saved from such pieces, the state on disk is byte for byte what the same versions saved from
/// one array give (so the format does not change), restores to the same bytes, cursor and
/// digest, and nothing on the way gathers the pieces into a whole copy.
struct WatchStateStoreFileBytesTests {
    typealias Generator = DeltaReplayTests.Generator

    /// `new` as a version read after `previous` (held as `previousBytes`) would hold it: the
    /// bytes it shares with `previous` at the start and at the end as slices of `previousBytes`'
    /// storage, cut at random points, and the changed middle as pieces of a new array.
    static func sharing(_ new: [UInt8], with previous: [UInt8], held previousBytes: FileBytes, using generator: inout Generator) -> FileBytes {
        let delta = ByteDelta(from: previous, to: new)
        let suffix = previous.count - delta.prefix - delta.removed
        let middle = Array(new[delta.prefix..<(new.count - suffix)])
        return Self.cut(previousBytes[0..<delta.prefix], using: &generator)
            + Self.cut(FileBytes(middle), using: &generator)
            + Self.cut(previousBytes[(previous.count - suffix)..<previous.count], using: &generator)
    }

    /// `bytes` in more pieces: each of its pieces cut at up to three random points (same storage).
    static func cut(_ bytes: FileBytes, using generator: inout Generator) -> FileBytes {
        FileBytes(
            pieces: bytes.pieces.flatMap { piece -> [FileBytes.Piece] in
                let cuts = ((0..<Int.random(in: 0...3, using: &generator)).map { _ in Int.random(in: piece.range, using: &generator) } + [
                    piece.range.lowerBound, piece.range.upperBound,
                ]).sorted()
                return zip(cuts, cuts.dropFirst()).map { FileBytes.Piece(storage: piece.storage, range: $0..<$1) }
            })
    }

    /// Version `number` of a products list whose row count moves too (rows appended, cut).
    static func version(_ number: Int, epoch: Epoch) throws -> WatchVersion {
        let rows = 300 + [0, 7, 2, 0, 40][number % 5]
        let text = number % 17 == 16 ? Lists.catalogue(number) : Lists.products(rows: rows, version: number)
        return WatchVersion(epoch: epoch, seq: UInt64(number), list: try ListReader(options: WatchStateStoreTests.watch.readOptions).read(bytes: Array(text.utf8)))
    }

    /// The same versions saved twice — from one array each, and from pieces that share storage
    /// with the version before — leave byte-identical files after every save and settle (the
    /// first version's staged slot, journal records, full checkpoints now and then, the log),
    /// and the state saved from pieces restores to each version's bytes, cursor and digest.
    @Test(arguments: [1, 2, 3])
    func stateSavedFromPiecesIsByteForByteTheStateSavedFromOneArray(seed: UInt64) throws {
        var generator = Generator(state: seed)
        let arrays = try ScratchDirectory()
        let pieces = try ScratchDirectory()
        let epoch = Epoch(rawValue: 21)
        let watch = WatchStateStoreTests.watch
        var whole = WatchStateStore(stateDirectory: arrays.path, name: "list", historyLength: 1000, crashPoints: .none)
        var inPieces = WatchStateStore(stateDirectory: pieces.path, name: "list", historyLength: 1000, crashPoints: .none)
        var previous: (array: [UInt8], held: FileBytes)?
        var slotsWritten = 0
        var slots: [[UInt8]?] = [nil, nil]
        for number in 0...60 {
            let version = try Self.version(number, epoch: epoch)
            let array = version.list.bytes
            let held = previous.map { Self.sharing(array, with: $0.array, held: $0.held, using: &generator) } ?? Self.cut(FileBytes(array), using: &generator)
            #expect(held == array)
            let changeset = number == 0 ? nil : FileBytes(Array("changeset \(number)".utf8))
            // The first version is staged (written while it is diffed), as the tracker does.
            let stagedWhole = whole.stagesCheckpoints ? try whole.stageCheckpoint(of: FileBytes(array)) : nil
            let stagedInPieces = inPieces.stagesCheckpoints ? try inPieces.stageCheckpoint(of: held) : nil
            #expect((stagedWhole == nil) == (stagedInPieces == nil))
            try whole.save(version, bytes: FileBytes(array), changeset: changeset, watch: watch, staged: stagedWhole)
            try inPieces.save(version, bytes: held, changeset: changeset, watch: watch, staged: stagedInPieces)
            for path in [whole.slotPath(0), whole.slotPath(1), whole.journalPath, whole.logPath] {
                let name = String(path.dropFirst(arrays.path.count))
                #expect((try? EndToEndTests.Persistence.contents(of: path)) == (try? EndToEndTests.Persistence.contents(of: pieces.path + name)), "version \(number): \(name) differs after the save")
            }
            try whole.settleLog()
            try inPieces.settleLog()
            for path in [whole.slotPath(0), whole.slotPath(1), whole.journalPath, whole.logPath] {
                let name = String(path.dropFirst(arrays.path.count))
                #expect((try? EndToEndTests.Persistence.contents(of: path)) == (try? EndToEndTests.Persistence.contents(of: pieces.path + name)), "version \(number): \(name) differs after the settle")
            }
            let now = try (0..<2).map { try? EndToEndTests.Persistence.contents(of: inPieces.slotPath($0)) }
            slotsWritten += zip(slots, now).filter { $0 != $1 }.count
            slots = now
            if number % 7 == 0 || number == 60 {
                let (restored, _) = try WatchStateStoreTests.restored(from: pieces, historyLength: 1000)
                #expect(restored.cursor == version.cursor && restored.digest == version.digest && restored.list.bytes == array, "version \(number) restored")
            }
            previous = (array, held)
        }
        #expect(slotsWritten >= 3, "full checkpoints written from pieces: \(slotsWritten)")
    }

    /// A journal record and a slot's bytes are written from the version's own pieces: the
    /// record's pieces are the inserted bytes' storage (not a copy), and the slot's bytes part is
    /// the version's pieces as they are — so a version in pieces is never gathered whole.
    @Test func recordsAndSlotsTakeTheVersionsPiecesWithoutACopy() throws {
        var generator = Generator(state: 9)
        let old = Array(Lists.products(rows: 2000, version: 1).utf8)
        let new = Array(Lists.products(rows: 2000, version: 2).utf8)
        let oldHeld = Self.cut(FileBytes(old), using: &generator)
        let newHeld = Self.sharing(new, with: old, held: oldHeld, using: &generator)
        #expect(newHeld.pieces.count > 2)
        func storages(_ bytes: FileBytes) -> Set<UInt> {
            Set(bytes.pieces.map { piece in piece.storage.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } })
        }
        // The new version's middle: its only storage that is not the old version's.
        let ownStorage = storages(newHeld).subtracting(storages(oldHeld))
        #expect(ownStorage.count == 1)

        let delta = ByteDelta(from: oldHeld, to: newHeld)
        #expect(delta == ByteDelta(from: old, to: new))
        #expect(!delta.inserted.isEmpty && storages(delta.inserted).isSubset(of: storages(newHeld)), "the inserted bytes were copied")

        let saved = SavedVersion(
            cursor: Cursor(epoch: Epoch(rawValue: 1), seq: 2), digest: try WatchStateStoreTests.products(2, rows: 10, epoch: Epoch(rawValue: 1)).digest,
            changeset: FileBytes(Array("two".utf8)), watch: WatchStateStoreTests.watch)
        let record = DeltaJournal.record(DeltaJournal.Entry(version: saved, byteCount: new.count, delta: delta))
        #expect(storages(delta.inserted).isSubset(of: storages(record)), "the record holds a copy of the inserted bytes")
        // The record's bytes are those main builds in one buffer (the format is unchanged).
        var payload = StateWriter()
        payload.integer(saved.cursor.seq)
        payload.integer(UInt64(new.count))
        payload.integer(UInt64(delta.prefix))
        payload.integer(UInt64(delta.removed))
        payload.byteString(delta.inserted.array)
        payload.byteString(saved.digest.bytes)
        payload.integer(1)
        payload.byteString(Array("two".utf8))
        Checkpoint.encode(saved.watch, into: &payload)
        #expect(record.array == StateWriter.frame(payload.bytes))
        // The record reads back as the delta.
        let (_, file) = DeltaJournal.empty(epoch: saved.cursor.epoch, baseSeq: 1)
        let entries = try DeltaJournal.decode(file + record.array, name: WatchStateStoreTests.watch.name).entries
        #expect(entries.count == 1 && entries.first?.delta == delta && entries.first?.byteCount == new.count)

        let (parts, checksum) = Checkpoint.leadingParts(of: newHeld)
        #expect(parts.last.map(storages) == storages(newHeld) && parts.last?.pieces.count == newHeld.pieces.count, "the slot's bytes were gathered")
        #expect(checksum == ChecksummedRecord.checksum(of: new[...]))
    }

    /// A ``ByteDelta`` computed from bytes in pieces, with the ends known equal (any true
    /// amount, up to what is shared), is the one computed by comparing every byte of two arrays;
    /// its inserted bytes are a slice of the new version (no copy).
    @Test(arguments: 0..<40)
    func aDeltaFromKnownEndsOfBytesInPiecesIsTheDeltaOfEveryByte(seed: UInt64) {
        var generator = Generator(state: seed &+ 100)
        let old = (0..<Int.random(in: 0...12_000, using: &generator)).map { _ in UInt8.random(in: 97...99, using: &generator) }
        let new = DeltaReplayTests.edited(old, using: &generator)
        let oldHeld = Self.cut(Self.cut(FileBytes(old), using: &generator), using: &generator)
        let newHeld = Bool.random(using: &generator) ? Self.sharing(new, with: old, held: oldHeld, using: &generator) : Self.cut(FileBytes(new), using: &generator)
        // The delta of every byte, compared one by one here: the longest common start, then the
        // longest common end within what it leaves.
        let prefix = zip(old, new).prefix { $0 == $1 }.count
        let suffix = zip(old[prefix...].reversed(), new[prefix...].reversed()).prefix { $0 == $1 }.count
        let full = ByteDelta(prefix: prefix, removed: old.count - prefix - suffix, inserted: FileBytes(Array(new[prefix..<(new.count - suffix)])))
        #expect(ByteDelta(from: old, to: new) == full, "seed \(seed): two arrays")
        let known = (prefix: Int.random(in: 0...prefix, using: &generator), suffix: Int.random(in: 0...suffix, using: &generator))
        let delta = ByteDelta(from: oldHeld, to: newHeld, known: known)
        #expect(delta == full, "seed \(seed): known \(known)")
        #expect(delta.inserted.array == Array(new[full.prefix..<(full.prefix + full.inserted.count)]))
        let newStorages = Set(newHeld.pieces.map { $0.storage.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } })
        #expect(delta.inserted.pieces.allSatisfy { newStorages.contains($0.storage.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }) })
    }
}
