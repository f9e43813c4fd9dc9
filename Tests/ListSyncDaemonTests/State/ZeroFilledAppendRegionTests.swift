import DurableFiles
import Glibc
import ListSyncTestSupport
import Testing

/// DurableFiles' zero-filled append region: records written over zeros the file already holds,
/// so that an append changes neither the file's size nor its blocks; where the records end is
/// found again after a reopen; a torn record followed by zeros is a torn tail; and a failed
/// append leaves nothing that reads as a record.
struct ZeroFilledAppendRegionTests {
    static let header = Array("MAGIC...".utf8)

    /// A record of `count` payload bytes, all `byte`.
    static func record(_ count: Int, _ byte: UInt8) -> [UInt8] {
        ChecksummedRecord.frame([UInt8](repeating: byte, count: count))
    }

    /// A new file at `path` holding ``header`` and the zeros of its region within `limit`.
    static func created(at path: String, limit: Int) throws -> ZeroFilledAppendRegion {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw TestFailure(description: "open \(path): errno \(errno)") }
        defer { close(descriptor) }
        try FileDescriptorIO.writeAll(Self.header, to: descriptor)
        var region = ZeroFilledAppendRegion(newFileOf: Self.header.count, limit: limit)
        try region.writeZeros(to: descriptor)
        guard fdatasync(descriptor) == 0 else { throw TestFailure(description: "fdatasync: errno \(errno)") }
        return region
    }

    static func append(_ bytes: [UInt8], to path: String, region: inout ZeroFilledAppendRegion, limit: Int) throws(TestFailure) {
        try region.append(bytes, to: path, limit: limit) { step, path, error in TestFailure(description: "\(path): \(step.operation): \(error)") }
    }

    /// The file's size and the blocks it takes.
    static func status(of path: String) throws -> (size: Int, blocks: Int) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw TestFailure(description: "stat \(path): errno \(errno)") }
        return (Int(status.st_size), Int(status.st_blocks))
    }

    /// The payloads of the records of `file` after ``header``, up to where they end, and that end.
    static func records(of file: [UInt8]) -> (payloads: [[UInt8]], end: Int) {
        var reader = ChecksummedRecordReader(file, from: Self.header.count)
        var payloads: [[UInt8]] = []
        while !ZeroFilledAppendRegion.endsRecords(in: file, at: reader.offset), let payload = try? reader.next() {
            payloads.append(Array(payload))
        }
        return (payloads, reader.offset)
    }

    @Test func appendsThatFitChangeNeitherTheSizeNorTheBlocksUntilTheZerosAreUsedUp() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path("log")
        let limit = 1 << 20
        var region = try Self.created(at: path, limit: limit)
        #expect(region.end == Self.header.count && region.size == Self.header.count + ZeroFilledAppendRegion.leastGrowth)
        let before = try Self.status(of: path)
        #expect(before.size == region.size && before.blocks * 512 >= region.size, "the zeros are written, not a hole")
        let record = Self.record(1000, 7)
        var appended = 0
        while region.end + record.count <= region.size {
            try Self.append(record, to: path, region: &region, limit: limit)
            appended += 1
            let now = try Self.status(of: path)
            #expect(now.size == before.size && now.blocks == before.blocks, "after \(appended) appends")
        }
        #expect(appended == ZeroFilledAppendRegion.leastGrowth / record.count)
        // The zeros are used up: the next append extends them (by at least the least growth).
        try Self.append(record, to: path, region: &region, limit: limit)
        let extended = try Self.status(of: path)
        #expect(extended.size == region.size && region.size >= region.end + ZeroFilledAppendRegion.leastGrowth)
        #expect(Self.records(of: try EndToEndTests.Persistence.contents(of: path)).payloads.count == appended + 1)
        // Never past the bound: an append near it extends only up to it.
        let bounded = region.end + 2 * record.count
        while region.end + record.count <= region.size {
            try Self.append(record, to: path, region: &region, limit: bounded)
        }
        try Self.append(record, to: path, region: &region, limit: bounded)
        #expect(try Self.status(of: path).size == max(bounded, region.end))
    }

    @Test func whereTheRecordsEndIsFoundAfterAReopenAndZerosNeverReadAsARecord() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path("log")
        var region = try Self.created(at: path, limit: 1 << 20)
        let payloads = (1...5).map { [UInt8](repeating: UInt8($0), count: $0 * 10) }
        for payload in payloads {
            try Self.append(ChecksummedRecord.frame(payload), to: path, region: &region, limit: 1 << 20)
        }
        let file = try EndToEndTests.Persistence.contents(of: path)
        let (read, end) = Self.records(of: file)
        #expect(read == payloads && end == region.end)
        let (found, isClean) = ZeroFilledAppendRegion.found(in: file, recordsEnd: end)
        #expect(isClean && found == region)
        // A frame of zeros is no record: its checksum (that of no bytes) is not zero.
        var zeros = ChecksummedRecordReader([UInt8](repeating: 0, count: 64))
        #expect(throws: ChecksummedRecordDamage.checksumMismatch(at: 0)) { _ = try zeros.next() }
        #expect(ZeroFilledAppendRegion.endsRecords(in: file, at: end) && ZeroFilledAppendRegion.endsRecords(in: file, at: file.count - 3))
        // The zeros start with the end mark, which a reader of the builds before the zeros takes
        // for a record cut short at the file's end: the last, torn, dropped.
        #expect(Array(file[end..<(end + 8)]) == ZeroFilledAppendRegion.endMark)
        var older = ChecksummedRecordReader(file, from: Self.header.count)
        #expect(older.readAll() == (payloads[...].map { $0[...] }, .truncated(at: end)) && older.nextRecordIsLast)
        // A file written before the zeros reads the same: its records end at its end.
        #expect(Self.records(of: Array(file[..<end])) == (payloads, end))
    }

    @Test func aTornRecordFollowedByZerosIsATornTailAndIsCutOff() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path("log")
        var region = try Self.created(at: path, limit: 1 << 20)
        for byte in UInt8(1)...3 {
            try Self.append(Self.record(100, byte), to: path, region: &region, limit: 1 << 20)
        }
        let file = try EndToEndTests.Persistence.contents(of: path)
        let third = region.end - Self.record(100, 3).count
        // The third record torn by a crash: its last bytes never reached the disk (zeros).
        var torn = file
        torn.replaceSubrange((third + 60)..<region.end, with: repeatElement(0, count: region.end - third - 60))
        let (read, end) = Self.records(of: torn)
        #expect(read.count == 2 && end == third)
        #expect(ZeroFilledAppendRegion.isLastRecord(in: torn, at: third), "only zeros follow it")
        let (cut, isClean) = ZeroFilledAppendRegion.found(in: torn, recordsEnd: end)
        #expect(!isClean && cut == ZeroFilledAppendRegion(end: third, size: third), "what is left of it is cut off before the next append")
        // A garbled record with a record after it is not the last: damage, not a torn tail.
        var garbled = file
        garbled[third - 5] ^= 0xFF
        let second = third - Self.record(100, 2).count
        #expect(Self.records(of: garbled).end == second)
        #expect(!ZeroFilledAppendRegion.isLastRecord(in: garbled, at: second))
        // Its frame's header torn away (zeros), the rest of it written: the records end there,
        // and the rest is not clean.
        var headless = file
        headless.replaceSubrange(third..<(third + 16), with: repeatElement(0, count: 16))
        #expect(Self.records(of: headless).end == third)
        #expect(!ZeroFilledAppendRegion.found(in: headless, recordsEnd: third).isClean)
    }

    /// A real full disk (a small tmpfs; mounting needs root): an append that fits in the zeros
    /// still succeeds — its space is the file's already — and one that does not fails and leaves
    /// the file as it was, nothing of it readable after the records.
    @Test(.enabled(if: geteuid() == 0, "mounting a tmpfs needs root"))
    func aFailedAppendLeavesNothingReadable() throws {
        let scratch = try ScratchDirectory()
        let disk = scratch.path("disk")
        try FileOperations.makeDirectory(disk)
        try #require(mount("tmpfs", disk, "tmpfs", 0, "size=1m") == 0, "mount: errno \(errno)")
        defer { umount2(disk, Int32(MNT_DETACH)) }
        let path = disk + "/log"
        let limit = 64 << 10
        var region = try Self.created(at: path, limit: limit)
        #expect(region.size == limit)
        // Fill the disk.
        let filler = open(disk + "/filler", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(filler) }
        let block = [UInt8](repeating: 1, count: 4096)
        while (try? FileDescriptorIO.writeAll(block, to: filler)) != nil {}

        try Self.append(Self.record(1000, 1), to: path, region: &region, limit: limit)
        let before = try EndToEndTests.Persistence.contents(of: path)
        let unchanged = region
        #expect(throws: TestFailure.self) {
            try Self.append(Self.record(200 << 10, 2), to: path, region: &region, limit: 1 << 20)
        }
        #expect(region == unchanged)
        let after = try EndToEndTests.Persistence.contents(of: path)
        #expect(after == before, "the file is as before the failed append")
        #expect(Self.records(of: after).payloads == [[UInt8](repeating: 1, count: 1000)])
        // The records go on where they ended.
        try Self.append(Self.record(10, 3), to: path, region: &region, limit: limit)
        #expect(Self.records(of: try EndToEndTests.Persistence.contents(of: path)).payloads.count == 2)
    }
}
