import DurableFiles
import Testing

/// DurableFiles' one checksummed record format, which the daemon's slots and log and the CLI's
/// journals share: the reader takes whole records and stops at the first torn or garbled one,
/// saying where it starts and whether it is the last (what a crash while appending leaves).
struct ChecksummedRecordTests {
    static let payloads = ["first", "", "third record"].map { Array($0.utf8) }

    @Test func recordsReadBackWholeAndTheFirstBadOneIsNamed() {
        let records = Self.payloads.map(ChecksummedRecord.frame)
        #expect(records.map(\.count) == Self.payloads.map { $0.count + ChecksummedRecord.headerSize })
        #expect(Array(records[0][0..<8]) == [5, 0, 0, 0, 0, 0, 0, 0], "the length, little-endian")
        let file = Array("MAGIC".utf8) + records.joined()

        var whole = ChecksummedRecordReader(file, from: 5)
        let (payloads, damage) = whole.readAll()
        #expect(payloads.map(Array.init) == Self.payloads && damage == nil && whole.isAtEnd)

        // A garbled byte in the second record's payload: the reader stops there.
        var garbled = file
        let second = 5 + records[0].count
        garbled[second + 8] ^= 0xFF  // its checksum
        var reader = ChecksummedRecordReader(garbled, from: 5)
        let (before, stop) = reader.readAll()
        #expect(before.map(Array.init) == [Self.payloads[0]])
        #expect(stop == .checksumMismatch(at: second) && reader.offset == second && !reader.nextRecordIsLast)
        #expect(stop?.description == "checksum mismatch in the record at byte \(second)")

        // The last record cut short: the whole ones before it, and where they end.
        let third = second + records[1].count
        var cut = ChecksummedRecordReader(Array(file.dropLast(3)), from: 5)
        let (kept, end) = cut.readAll()
        #expect(kept.count == 2 && end == .truncated(at: third) && cut.offset == third && cut.nextRecordIsLast)
        var headerOnly = ChecksummedRecordReader(Array(file.prefix(third + 10)), from: 5)
        #expect(headerOnly.readAll().damage == .truncated(at: third) && headerOnly.nextRecordIsLast)
    }

    /// A payload held in pieces (``FileBytes``) has the checksum and the frame of the same bytes
    /// in one array: XXH3-64 fed piece by piece, whatever the cuts (none, every byte, across
    /// XXH3's 64-byte stripes and 1 KiB blocks).
    @Test(arguments: [0, 1, 63, 64, 65, 240, 1024, 5000])
    func aPayloadInPiecesHasTheChecksumAndFrameOfTheSameBytes(count: Int) {
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for step in [1, 3, 64, 100, 1000] {
            let pieces = FileBytes(pieces: stride(from: 0, to: count, by: step).map { FileBytes.Piece(storage: payload, range: $0..<min(count, $0 + step)) })
            #expect(ChecksummedRecord.checksum(of: pieces) == ChecksummedRecord.checksum(of: payload[...]), "\(count) bytes in pieces of \(step)")
            #expect(ChecksummedRecord.frame(pieces).array == ChecksummedRecord.frame(payload))
        }
    }
}
