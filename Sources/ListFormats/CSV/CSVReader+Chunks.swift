extension CSVReader {
    /// Reads the rows of `buffer` from `start` (where a row or blank lines start) to its end, with
    /// the header's `columns`, in chunks of about `chunkSize` bytes that each start where a row or
    /// blank lines start (``ChunkedRegion``): the records and counts of each chunk are its own,
    /// whatever came before it. `storage` holds the whole file, of which `buffer` may be a prefix.
    /// The records array is sized for `estimatedCount` records when given (the first half of a
    /// split read: the whole region's, so that the second half's records are appended in place),
    /// else from `buffer`'s rows.
    func readRowChunks(
        _ buffer: UnsafeBufferPointer<UInt8>, storage: ListStorage, columns: CSVColumns, from start: Int, chunkSize: Int,
        estimatedCount: Int? = nil
    ) throws(ListFormatError) -> ChunkedRegion {
        guard let base = buffer.baseAddress, start < buffer.count else { return ChunkedRegion() }
        var scanner = CSVScanner(base: base, count: buffer.count, delimiter: delimiter)
        var assembler = ListAssembler(
            chunksOf: storage, source: buffer, isSectioned: columns.section != nil,
            estimatedCount: estimatedCount
                ?? ListAssembler.estimatedCount(of: CSVReader.recordMarks, in: buffer, from: start))
        var region = ChunkedRegion()
        var index = start
        var pages = ParsedPagesRelease(storage: storage, buffer: buffer, from: start)
        defer { pages.finish(at: index) }
        while index < buffer.count {
            pages.passed(index)
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
