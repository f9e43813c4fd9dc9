import Testing
@testable import ListSyncDaemon

/// A reader of a record's payload where it lies reads what a reader of a copy reads, and stops
/// at the payload's end, not the buffer's.
struct StateReaderTests {
    @Test func aReaderWithinARecordReadsItInPlaceAndStopsAtItsEnd() throws {
        var payload = StateWriter(capacity: 64)
        payload.integer(42)
        payload.byteString(Array("a line".utf8))
        let file = StateWriter.frame(payload.bytes) + StateWriter.frame([1, 2, 3, 4, 5, 6, 7, 8, 9])
        var records = StateReader(file)
        let first = try records.record()

        var copy = StateReader(Array(first))
        var inPlace = StateReader(file, within: first.indices)
        #expect(try copy.integer() == 42 && inPlace.integer() == 42)
        let line = try inPlace.byteString()
        #expect(Array(line) == Array(try copy.byteString()))
        #expect(line.startIndex > first.startIndex && line.endIndex == first.endIndex, "a slice of the file")
        #expect(inPlace.isAtEnd && copy.isAtEnd)
        // The next record's bytes follow in the buffer, but not in the payload.
        #expect(throws: StateDamage.Reason.self) { try inPlace.integer() }
        #expect(throws: StateDamage.Reason.self) { try inPlace.record() }
    }
}
