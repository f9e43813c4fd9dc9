import DurableFiles
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// Issue 19: with ``WatchStateStore/mapsSavedBytes``, the live version's bytes are mapped from
/// the slot or journal records that hold them. They are the version's bytes after every save,
/// through full checkpoints and journal rebases; bytes mapped for an older version and still
/// held (a snapshot in progress) keep reading that version's bytes after the slot they were
/// mapped from is written again; and the files on disk are byte for byte those of a store that
/// maps nothing.
struct WatchStateStoreMappedBytesTests {
    @Test(arguments: [4, 5])
    func mappedBytesAreEachVersionsBytesAndOutliveTheirSlot(seed: UInt64) throws {
        var generator = DeltaReplayTests.Generator(state: seed)
        let mapping = try ScratchDirectory()
        let plain = try ScratchDirectory()
        let epoch = Epoch(rawValue: 23)
        let watch = WatchStateStoreTests.watch
        var mapped = WatchStateStore(stateDirectory: mapping.path, name: "list", historyLength: 1000, crashPoints: .none)
        mapped.mapsSavedBytes = true
        var unmapped = WatchStateStore(stateDirectory: plain.path, name: "list", historyLength: 1000, crashPoints: .none)
        // Older versions' mapped bytes, held as a snapshot in progress holds them.
        var held: [(number: Int, bytes: FileBytes, expected: [UInt8])] = []
        var slotsWritten = 0
        var slots: [[UInt8]?] = [nil, nil]
        for number in 0...70 {
            let version = try WatchStateStoreFileBytesTests.version(number, epoch: epoch)
            let array = version.list.bytes
            let changeset = number == 0 ? nil : FileBytes(Array("changeset \(number)".utf8))
            #expect(mapped.stagesCheckpoints == unmapped.stagesCheckpoints)
            let stagedMapped = mapped.stagesCheckpoints ? try mapped.stageCheckpoint(of: FileBytes(array)) : nil
            let stagedUnmapped = unmapped.stagesCheckpoints ? try unmapped.stageCheckpoint(of: FileBytes(array)) : nil
            try mapped.save(version, bytes: FileBytes(array), changeset: changeset, watch: watch, staged: stagedMapped)
            try unmapped.save(version, bytes: FileBytes(array), changeset: changeset, watch: watch, staged: stagedUnmapped)
            #expect(mapped.mappedLiveBytes.map { $0 == array && $0.holdsMappings } == true, "version \(number): mapped after the save")
            #expect(unmapped.mappedLiveBytes == nil)
            try mapped.settleLog()
            try unmapped.settleLog()
            #expect(mapped.mappedLiveBytes.map { $0 == array } == true, "version \(number): mapped after the settle")
            for path in [mapped.slotPath(0), mapped.slotPath(1), mapped.journalPath, mapped.logPath] {
                let name = String(path.dropFirst(mapping.path.count))
                #expect(
                    (try? EndToEndTests.Persistence.contents(of: path)) == (try? EndToEndTests.Persistence.contents(of: plain.path + name)),
                    "version \(number): \(name) differs from a store that maps nothing")
            }
            if let bytes = mapped.mappedLiveBytes, Int.random(in: 0..<4, using: &generator) == 0 {
                held.append((number, bytes, array))
            }
            // What is held reads its own version's bytes, whatever was written since; the pages
            // it read are let go (they are read back from the files).
            for (heldNumber, bytes, expected) in held {
                #expect(bytes == expected, "version \(heldNumber), held, read after version \(number) was saved")
                bytes.releaseMappedPages()
            }
            let now = (0..<2).map { try? EndToEndTests.Persistence.contents(of: mapped.slotPath($0)) }
            slotsWritten += zip(slots, now).filter { $0 != $1 }.count
            slots = now
        }
        #expect(slotsWritten >= 4, "full checkpoints written: \(slotsWritten)")
        #expect(held.count >= 5)
        let (restored, _) = try WatchStateStoreTests.restored(from: mapping, historyLength: 1000)
        #expect(restored.list.bytes == (try WatchStateStoreFileBytesTests.version(70, epoch: epoch)).list.bytes)
    }

    /// A delta against a mapped version larger than a stretch (compared a stretch at a time,
    /// its pages let go of) is the delta against the same bytes in an array, wherever they differ.
    @Test func aDeltaFromAMappedVersionIsTheDeltaFromItsBytes() throws {
        let scratch = try ScratchDirectory()
        var generator = DeltaReplayTests.Generator(state: 31)
        let count = 2 * FileBytes.mappedStretchLength + 999
        let old = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try FileContent.write(bytes: old, to: scratch.path("slot"))
        let mapped = FileBytes(mapped: try MappedFileRegion(path: scratch.path("slot"), count: count))
        for (start, end) in [(10, 20), (FileBytes.mappedStretchLength - 5, FileBytes.mappedStretchLength + 5), (count - 3, count)] {
            var new = old
            new.replaceSubrange(start..<end, with: [UInt8](repeating: 0, count: 7))
            #expect(ByteDelta(from: mapped, to: FileBytes(new)) == ByteDelta(from: old, to: new), "changed \(start)..<\(end)")
        }
    }
}
