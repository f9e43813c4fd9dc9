/// The CSV grammar of `listsync_csv_scan`, one byte at a time, as plainly as
/// it can be said, to check the SIMD kernels against: a field is quoted —
/// `"` … `"` with `""` for a quote, delimiters and line breaks allowed
/// inside, and only a delimiter, a line end or the end after it — or
/// unquoted, running to the next delimiter or line end (a quote in it is an
/// ordinary, "loose" character). A row ends at LF, CRLF or a lone CR; a line
/// end where a row would start is a blank line, skipped and counted. It does
/// not check UTF-8.
enum ReferenceCSVScan {
    private static let quote = UInt8(ascii: "\"")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// The rows of `bytes` from `start` (where a row or blank lines start) to the end.
    static func scan(_ bytes: [UInt8], delimiter: UInt8, from start: Int) -> CSVScanOutcome {
        var outcome = CSVScanOutcome()
        let count = bytes.count
        func isFieldEnd(_ index: Int) -> Bool {
            bytes[index] == delimiter || bytes[index] == lineFeed || bytes[index] == carriageReturn
        }
        func afterLineEnding(_ index: Int) -> Int {
            bytes[index] == carriageReturn && index + 1 < count && bytes[index + 1] == lineFeed ? index + 2 : index + 1
        }
        var index = start
        while index < count {
            if bytes[index] == lineFeed || bytes[index] == carriageReturn {
                outcome.blankLineCount += 1
                index = afterLineEnding(index)
                continue
            }
            var row = CSVScanOutcome.Row(start: index, end: index, next: index, separators: [], hasQuote: false, hasLooseQuote: false)
            while true {
                if index < count, bytes[index] == quote {
                    let opening = index
                    row.hasQuote = true
                    index += 1
                    while true {
                        guard index < count else {
                            outcome.ending = .unterminatedQuote(at: opening)
                            return outcome
                        }
                        if bytes[index] == quote {
                            guard index + 1 < count, bytes[index + 1] == quote else { break }
                            index += 2
                        } else {
                            index += 1
                        }
                    }
                    index += 1
                    if index < count, !isFieldEnd(index) {
                        outcome.ending = .characterAfterClosingQuote(at: index)
                        return outcome
                    }
                } else {
                    while index < count, !isFieldEnd(index) {
                        if bytes[index] == quote {
                            row.hasQuote = true
                            row.hasLooseQuote = true
                        }
                        index += 1
                    }
                }
                row.separators.append(index)
                guard index < count, bytes[index] == delimiter else { break }
                index += 1
            }
            row.end = index
            row.next = index < count ? afterLineEnding(index) : index
            outcome.rows.append(row)
            index = row.next
        }
        return outcome
    }
}
