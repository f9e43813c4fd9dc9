import CListFormatsScan

/// `listsync_csv_scan_with` driven as ListFormats' `CSVScanner` and
/// `CSVReader` drive `listsync_csv_scan`: batches of at most `rowCapacity`
/// rows, the separator buffer grown when a row does not fit, and the scan
/// cut into chunks of `chunkSize` bytes (each batch stops before a row that
/// starts at or after its chunk's end), until the end or an error.
struct CSVKernelScan {
    /// One call's result: the batch as the C function filled it, and its rows.
    struct Batch: Equatable {
        var status: Int32
        var rowCount: Int
        var blankLineCount: Int
        var next: Int
        var errorOffset: Int
        var rows: [CSVScanOutcome.Row]
        /// Where the batch was to stop: the rows all start before it.
        var limit: Int
    }

    var rowCapacity: Int
    var separatorCapacity: Int
    var chunkSize: Int

    /// The batches of scanning `bytes` from `start` with `kernel`, or nil
    /// when the CPU does not have it.
    func batches(kernel: Int32, _ bytes: [UInt8], delimiter: UInt8, from start: Int) -> [Batch]? {
        var separators = [UInt32](repeating: 0, count: separatorCapacity)
        var rows = [listsync_csv_row](repeating: listsync_csv_row(), count: rowCapacity)
        var batches: [Batch] = []
        var index = start
        var limit = start + chunkSize
        // An empty array may have no address: scan a one-byte one of which none is counted.
        let storage = bytes.isEmpty ? [0] : bytes
        return storage.withUnsafeBufferPointer { buffer -> [Batch]? in
            guard let base = buffer.baseAddress else { return nil }
            while true {
                var batch = listsync_csv_batch()
                let scanned = separators.withUnsafeMutableBufferPointer { separatorBuffer in
                    listsync_csv_scan_with(
                        kernel, base, Int64(bytes.count), Int64(index), Int64(limit), delimiter, &rows, Int64(rowCapacity),
                        separatorBuffer.baseAddress, Int64(separatorBuffer.count), &batch)
                }
                guard scanned else { return nil }
                if batch.status == LISTSYNC_CSV_FULL, batch.row_count == 0, batch.next == index {
                    // A row with more fields than the buffer holds: as `CSVScanner`, grow it.
                    separators += [UInt32](repeating: 0, count: separators.count)
                    continue
                }
                batches.append(
                    Batch(
                        status: batch.status, rowCount: Int(batch.row_count), blankLineCount: Int(batch.blank_line_count),
                        next: Int(batch.next), errorOffset: Int(batch.error_offset),
                        rows: rows.prefix(Int(batch.row_count)).map { row in
                            CSVScanOutcome.Row(
                                start: Int(row.start), end: Int(row.end), next: Int(row.next),
                                separators: separators[Int(row.first_separator)..<Int(row.first_separator + row.field_count)]
                                    .map(Int.init),
                                hasQuote: row.has_quote, hasLooseQuote: row.has_loose_quote)
                        },
                        limit: limit))
                guard batch.status == LISTSYNC_CSV_FULL else { return batches }
                index = Int(batch.next)
                if index >= limit { limit = index + chunkSize }
            }
        }
    }

    /// What the batches found together.
    static func outcome(of batches: [Batch]) -> CSVScanOutcome {
        var outcome = CSVScanOutcome()
        for batch in batches {
            outcome.rows += batch.rows
            outcome.blankLineCount += batch.blankLineCount
        }
        switch Int(batches.last?.status ?? Int32(LISTSYNC_CSV_END)) {
        case LISTSYNC_CSV_UNTERMINATED_QUOTE: outcome.ending = .unterminatedQuote(at: batches.last?.errorOffset ?? -1)
        case LISTSYNC_CSV_CHARACTER_AFTER_CLOSING_QUOTE:
            outcome.ending = .characterAfterClosingQuote(at: batches.last?.errorOffset ?? -1)
        case LISTSYNC_CSV_INVALID_UTF8: outcome.ending = .invalidUTF8
        default: outcome.ending = .end
        }
        return outcome
    }
}
