import DurableFiles
import Glibc
import ListSyncTestSupport
import Testing

/// ``FileBytes`` whose pieces are ranges of mapped file regions (``MappedFileRegion``) behave as
/// the array of the same bytes, whatever the region's offset in its file (pages cut anywhere)
/// and however the pieces mix mapped and array storage.
struct FileBytesMappedStorageTests {
    @Test func mappedPiecesBehaveAsTheArrayOfTheirBytes() throws {
        let scratch = try ScratchDirectory(prefix: "fbmap")
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        for seed in UInt64(1)...60 {
            var generator = SplitMix(seed: seed)
            let count = Int.random(in: 1...(3 * pageSize), using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...3, using: &generator) }
            // Bytes that are not the region's before and after it in the file; the region starts
            // anywhere in a page, at a page boundary now and then.
            let before = Bool.random(using: &generator) ? pageSize * Int.random(in: 0...2, using: &generator) : Int.random(in: 0...(2 * pageSize), using: &generator)
            let after = Int.random(in: 0...100, using: &generator)
            let path = scratch.path("file-\(seed)")
            try FileContent.write(bytes: [UInt8](repeating: 9, count: before) + bytes + [UInt8](repeating: 9, count: after), to: path)
            let region = try MappedFileRegion(path: path, offset: before, count: count)
            #expect(Array(region.buffer) == bytes, "seed \(seed)")

            let mapped = FileBytes(mapped: region)
            let mixed = Self.randomMix(of: region, bytes: bytes, using: &generator)
            for value in [mapped, mixed] {
                #expect(value.count == bytes.count, "seed \(seed)")
                #expect(value.array == bytes, "seed \(seed)")
                #expect(value == FileBytes(bytes), "seed \(seed)")
                #expect(value.hashValue == bytes.hashValue, "seed \(seed)")
                #expect(value.holdsMappings, "seed \(seed)")
                for offset in Self.sampleOffsets(count, using: &generator) {
                    #expect(value[offset] == bytes[offset], "seed \(seed), byte \(offset)")
                }
                let lower = Int.random(in: 0...count, using: &generator)
                let upper = Int.random(in: lower...count, using: &generator)
                #expect(value[lower..<upper].array == Array(bytes[lower..<upper]), "seed \(seed)")
                value.withContiguousBytes(in: lower..<upper) { #expect(Array($0) == Array(bytes[lower..<upper]), "seed \(seed)") }
                var other = bytes
                other[Int.random(in: 0..<count, using: &generator)] &+= 1
                #expect(value != FileBytes(other), "seed \(seed)")
                // Letting the touched pages go keeps the bytes: they are read back from the file.
                value.releaseMappedPages()
                #expect(value.array == bytes, "seed \(seed): after the pages were released")
            }
            // A slice of the mapping shares it: the same address, the region counted once.
            let slice = mapped[0..<(count / 2)] + mapped[(count / 2)..<count]
            #expect(slice.pieces.allSatisfy { $0.storage.address == mapped.pieces[0].storage.address }, "seed \(seed)")
            #expect(slice.storageByteCount == count, "seed \(seed)")
            #expect(slice == mapped, "seed \(seed)")
        }
    }

    /// A mapped region keeps the bytes of its file after another file is renamed over it (the
    /// old inode stays while mapped): a writer may replace a mapped file by renaming, never in place.
    @Test func aMappingKeepsTheBytesOfAFileRenamedOver() throws {
        let scratch = try ScratchDirectory(prefix: "fbmap")
        let path = scratch.path("slot")
        let old = [UInt8](repeating: 1, count: 10_000)
        try FileContent.write(bytes: old, to: path)
        let mapped = FileBytes(mapped: try MappedFileRegion(path: path, offset: 100, count: 9_000))
        try FileContent.write(bytes: [UInt8](repeating: 2, count: 20_000), to: path + ".new")
        try FileContent.rename(path + ".new", path)
        mapped.releaseMappedPages()
        #expect(mapped == FileBytes(Array(old[100..<9_100])))
    }

    /// A mapped version larger than a stretch (``FileBytes/mappedStretchLength``), in pieces
    /// with arrays between them, is checksummed and written a stretch at a time: the same
    /// checksum and the same file as from one array, and its pages let go of as it goes.
    @Test func stretchesOfALargeMappingChecksumAndWriteAsTheArray() throws {
        let scratch = try ScratchDirectory(prefix: "fbmap")
        var generator = SplitMix(seed: 77)
        let count = 2 * FileBytes.mappedStretchLength + 12_345
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try FileContent.write(bytes: [1, 2, 3] + bytes, to: scratch.path("slot"))
        let region = try MappedFileRegion(path: scratch.path("slot"), offset: 3, count: count)
        let mapped = FileBytes(mapped: region)
        let cut = count / 3
        let mixed = mapped[0..<cut] + FileBytes(Array(bytes[cut..<(cut + 100)])) + mapped[(cut + 100)..<count]
        var starts: [Int] = []
        mixed.forEachStretch { start, stretch in
            #expect(stretch.count <= FileBytes.mappedStretchLength)
            #expect(Array(stretch) == Array(bytes[start..<(start + stretch.count)]), "the stretch at \(start)")
            starts.append(start)
        }
        #expect(starts.count >= 4 && starts.first == 0)
        // Copied whole into an array, a stretch at a time with each stretch's pages let go of
        // (session ld): about a stretch stays resident, not the mapping.
        #expect(mapped.array == bytes)
        #expect(try region.residentBytes() <= FileBytes.mappedStretchLength + 2 * 4096)
        // Read whole in place, the mapping's pages are resident; let go of, they are not; gone
        // through a stretch at a time, at most about a stretch stays.
        var sum = 0
        for byte in region.buffer { sum &+= Int(byte) }
        #expect(sum == bytes.reduce(0) { $0 &+ Int($1) })
        #expect(try region.residentBytes() >= count - 4096)
        mapped.releaseMappedPages()
        #expect(try region.residentBytes() == 0)
        _ = ChecksummedRecord.checksum(of: mapped)
        #expect(try region.residentBytes() <= 2 * 4096)
        for value in [mapped, mixed] {
            // Compared a stretch at a time: equal to the array, unequal wherever a byte differs.
            #expect(value == FileBytes(bytes))
            for offset in [0, FileBytes.mappedStretchLength - 1, FileBytes.mappedStretchLength, count - 1] {
                var other = bytes
                other[offset] &+= 1
                #expect(value != FileBytes(other), "byte \(offset) changed")
            }
            #expect(ChecksummedRecord.checksum(of: value) == ChecksummedRecord.checksum(of: bytes[...]))
            let path = scratch.path("written")
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            #expect(descriptor >= 0)
            try FileDescriptorIO.writeAll(value, to: descriptor)
            close(descriptor)
            let written = try MappedFileRegion(path: path, count: count)
            #expect(Array(written.buffer) == bytes)
        }
    }

    /// A region that cannot be mapped (no such file) is an error, not a crash.
    @Test func aMissingFileIsAnError() throws {
        let scratch = try ScratchDirectory(prefix: "fbmap")
        #expect(throws: SystemCallError.self) { try MappedFileRegion(path: scratch.path("none"), count: 10) }
    }

    /// `bytes`, a mapped `region`'s bytes, in pieces of random lengths: some slices of the
    /// region, some arrays of their own.
    static func randomMix(of region: MappedFileRegion, bytes: [UInt8], using generator: inout SplitMix) -> FileBytes {
        var pieces: [FileBytes.Piece] = []
        var start = 0
        while start < bytes.count {
            let end = Int.random(in: start...min(bytes.count, start + 1_500), using: &generator)
            if Bool.random(using: &generator) {
                pieces.append(FileBytes.Piece(storage: .mapped(region), range: start..<end))
            } else {
                pieces.append(FileBytes.Piece(storage: [7] + bytes[start..<end], range: 1..<(1 + end - start)))
            }
            start = end
        }
        return FileBytes(pieces: pieces)
    }

    /// Some offsets in `0..<count`: the ends and random ones.
    static func sampleOffsets(_ count: Int, using generator: inout SplitMix) -> [Int] {
        [0, count - 1] + (0..<40).map { _ in Int.random(in: 0..<count, using: &generator) }
    }
}
