import CListFormatsScan

/// What scanning CSV rows from one offset to the end found, in the terms of
/// `listsync_csv_scan`: the rows with the offsets that end their fields, the
/// blank lines skipped, and how it ended. The reference grammar
/// (``ReferenceCSVScan``) and each SIMD kernel (``CSVKernelScan``) produce
/// one, to be compared.
struct CSVScanOutcome: Equatable, CustomStringConvertible {
    /// A row: where it starts, where its content ends, where the next row
    /// starts, the byte that ends each field (a delimiter, a line end, or
    /// the end of the input), and its quotes.
    struct Row: Equatable {
        var start: Int
        var end: Int
        var next: Int
        var separators: [Int]
        var hasQuote: Bool
        var hasLooseQuote: Bool
    }

    /// How a scan ended.
    enum Ending: Equatable {
        case end
        case unterminatedQuote(at: Int)
        case characterAfterClosingQuote(at: Int)
        case invalidUTF8
    }

    var rows: [Row] = []
    var blankLineCount = 0
    var ending = Ending.end

    var description: String {
        "CSVScanOutcome(ending: \(ending), blank lines: \(blankLineCount), rows: \(rows.map { "\($0)" }.joined(separator: "\n  ")))"
    }
}
