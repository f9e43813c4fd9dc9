@testable import ListFormats
import Testing

/// A region of a JSON array or object read in chunks (the records around an edit, for the
/// incremental reader) sizes its arrays for that region, not for every record up to the end of
/// the file: the assembler's records and the duplicate counter's buffers are advised for 2 MiB
/// pages, so a buffer sized for the file had megabytes zeroed at every version (issue 19).
@Suite struct JSONChunkReadSizingTests {
    @Test func aRegionNearTheStartIsSizedForItsOwnRecords() throws {
        let rows = (0..<50_000).map { #"{"id":\#($0),"name":"row \#($0)"}"# }
        let bytes = Array(("[\n" + rows.joined(separator: ",\n") + "\n]\n").utf8)
        let options = ReadOptions(format: .json, key: ["id"])
        let reader = JSONReader(options: options)
        let storage = ListStorage(source: bytes, encoding: try JSONReader.Fields(options: options).encoding)
        try bytes.withUnsafeBufferPointer { buffer in
            let (start, _) = try reader.documentStart(buffer, hadByteOrderMark: false)
            // The records of about the first 8 KiB: up to where the 200th record starts.
            let end = try #require(rows.prefix(200).reduce(start) { $0 + $1.utf8.count + 2 } as Int?)
            let region = try reader.readArrayChunks(buffer, storage: storage, from: start, to: end, chunkSize: 4096)
            #expect(region.records.count == 200)
            #expect(region.records.capacity < 1_000, "sized for \(region.records.capacity) records, the file has 50,000")
        }
    }
}
