extension CSVReader {
    /// Reads the rows of `buffer` from `start` (where a row or blank lines start) to its end, with
    /// the header's `columns`, in chunks of about `chunkSize` bytes that each start where a row or
    /// blank lines start (``ChunkedRegion``): the records and counts of each chunk are its own,
    /// whatever came before it. `storage` holds the whole file, of which `buffer` may be a prefix.
    func readRowChunks(
        _ buffer: UnsafeBufferPointer<UInt8>, storage: ListStorage, columns: CSVColumns, from start: Int, chunkSize: Int
    ) throws(ListFormatError) -> ChunkedRegion {
        guard let base = buffer.baseAddress, start < buffer.count else { return ChunkedRegion() }
        var scanner = CSVScanner(base: base, count: buffer.count, delimiter: delimiter)
        var assembler = ListAssembler(
            chunksOf: storage, source: buffer, isSectioned: columns.section != nil,
            estimatedCount: ListAssembler.estimatedCount(of: (ASCII.lineFeed, ASCII.carriageReturn), in: buffer, from: start))
        var region = ChunkedRegion()
        var index = start
        while index < buffer.count {
            var report = ReadReport()
            let next = try readRows(
                from: index, until: index + chunkSize, scanner: &scanner, columns: columns, into: &assembler,
                report: &report)
            region.chunks.append(
                ChunkedRegion.Extent(
                    start: index, end: next, recordEnd: assembler.recordCount, blankLineCount: report.blankLineCount,
                    paddedRowCount: report.paddedRowCount, truncatedRowCount: report.truncatedRowCount,
                    sections: assembler.finishChunk()))
            index = next
        }
        (region.records, region.sectionOfRecord) = assembler.chunkedRecords()
        return region
    }
}
