import CListFormatsScan

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits CSV rows into fields, over the file's bytes, many rows per call.
///
/// The scanner never copies: a field is a byte range of the file, marked with
/// how it was quoted, and values are built only when someone asks. The
/// splitting itself is `listsync_csv_scan` (C, SIMD: quotes, delimiters and
/// line ends found 64 bytes at a time with SSE2, AVX2 or AVX-512, whichever
/// the CPU has, UTF-8 checked on the way), which fills
/// a batch of rows and where their fields end; `listsync_csv_hash_rows`
/// hashes what it can of the batch; the reader then goes through it.
///
/// Grammar (RFC 4180, as Python's `csv` reads it): a field is either quoted —
/// `"` … `"` with `""` for a quote, line breaks allowed inside — or unquoted,
/// running to the next delimiter or line end (a quote inside an unquoted
/// field is an ordinary character). A row ends at LF, CRLF or a lone CR;
/// blank lines between rows are skipped.
struct CSVScanner: ~Copyable {
    let base: UnsafePointer<UInt8>
    let count: Int
    let delimiter: UInt8
    private var rows: UnsafeMutableBufferPointer<listsync_csv_row>
    /// Where each field of the batch's rows ends (see `listsync_csv_row`).
    private var separators: UnsafeMutableBufferPointer<UInt32>
    /// The hashes of the batch's rows, after ``hashRows(fieldCount:keyColumn:hashesContent:headerSeed:identity:)``.
    private var hashes: UnsafeMutableBufferPointer<listsync_csv_row_hashes>
    /// The records of the rows that ``hashRows(fieldCount:keyColumn:hashesContent:headerSeed:identity:)`` made ready.
    private var records: UnsafeMutableBufferPointer<listsync_record>
    private var rowCount = 0

    /// A row of the last batch.
    struct Row {
        /// The row's first byte.
        var start: Int
        /// The end of the row's content (its line ending excluded).
        var end: Int
        /// Where the next row starts (after the line ending).
        var next: Int
        /// Whether the row holds a quote anywhere.
        var hasQuote: Bool
        /// The row's fields end at the batch's separators
        /// `firstSeparator..<firstSeparator + fieldCount`.
        var firstSeparator: Int
        var fieldCount: Int
    }

    /// What one ``scan(from:rowLimit:)`` found.
    struct Batch {
        /// The rows, ``row(_:)`` `0..<rowCount`.
        var rowCount: Int
        /// Blank lines skipped.
        var blankLineCount: Int
        /// Where to continue, or the end of the file.
        var next: Int
        /// Whether rows remain after `next`.
        var hasMore: Bool
        /// The error found after the batch's rows.
        var error: ListFormatError?
    }

    /// A scanner over `count` bytes at `base`, with room for `rowCapacity`
    /// rows per batch.
    init(base: UnsafePointer<UInt8>, count: Int, delimiter: UInt8, rowCapacity: Int = 1024) {
        self.base = base
        self.count = count
        self.delimiter = delimiter
        rows = .allocate(capacity: max(rowCapacity, 1))
        separators = .allocate(capacity: max(rowCapacity, 1) * 16 + Int(LISTSYNC_CSV_SEPARATOR_SLACK) + 64)
        hashes = .allocate(capacity: max(rowCapacity, 1))
        records = .allocate(capacity: max(rowCapacity, 1))
    }

    deinit {
        rows.deallocate()
        separators.deallocate()
        hashes.deallocate()
        records.deallocate()
    }

    /// Scans at most `rowLimit` rows from `start`, skipping blank lines
    /// before each, up to the first row or blank line that starts at or
    /// after `limit`. O(bytes scanned).
    mutating func scan(from start: Int, until limit: Int = .max, rowLimit: Int = .max) -> Batch {
        var batch = listsync_csv_batch()
        while true {
            listsync_csv_scan(
                base, Int64(count), Int64(start), Int64(min(limit, Int(Int64.max))), delimiter, rows.baseAddress,
                Int64(min(rowLimit, rows.count)), separators.baseAddress, Int64(separators.count), &batch)
            // A row with more fields than the buffer holds stops the scan where it started:
            // grow the buffer and scan again. (A batch that is full without a row but got
            // further — blank lines up to `limit` or the end — is a result.)
            guard batch.status == LISTSYNC_CSV_FULL, batch.row_count == 0, batch.next == start else { break }
            let larger = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: separators.count * 2)
            separators.deallocate()
            separators = larger
        }
        let error: ListFormatError? =
            switch Int(batch.status) {
            case LISTSYNC_CSV_UNTERMINATED_QUOTE: .unterminatedQuote(at: position(of: Int(batch.error_offset)))
            case LISTSYNC_CSV_CHARACTER_AFTER_CLOSING_QUOTE:
                .characterAfterClosingQuote(at: position(of: Int(batch.error_offset)))
            case LISTSYNC_CSV_INVALID_UTF8: UTF8Validation.error(in: UnsafeBufferPointer(start: base, count: count))
            default: nil
            }
        rowCount = Int(batch.row_count)
        return Batch(
            rowCount: rowCount, blankLineCount: Int(batch.blank_line_count), next: Int(batch.next),
            hasMore: Int(batch.status) == LISTSYNC_CSV_FULL, error: error)
    }

    /// Hashes the rows of the last batch that can be hashed as they are in
    /// the file (see `listsync_csv_hash_rows`): their content, sealed with
    /// `headerSeed`, when `hashesContent` and they have `fieldCount` fields,
    /// the value of field
    /// `keyColumn` (if any). O(bytes of the batch).
    /// Rows whose content and identity (`identity`, one of
    /// `LISTSYNC_IDENTITY_…`) were both taken are ready: their records are
    /// ``readyRecords(_:)``.
    mutating func hashRows(fieldCount: Int, keyColumn: Int?, hashesContent: Bool, headerSeed: UInt64, identity: Int32) {
        listsync_csv_hash_rows(
            base, delimiter, rows.baseAddress, Int64(rowCount), separators.baseAddress, Int64(fieldCount),
            Int64(keyColumn ?? -1), hashesContent, headerSeed, identity, hashes.baseAddress, records.baseAddress)
    }

    /// The records of the rows `rows` of the last batch, which are ready.
    func readyRecords(_ rows: Range<Int>) -> UnsafeBufferPointer<listsync_record> {
        UnsafeBufferPointer(rebasing: records[rows])
    }

    /// The hashes of row `index` of the last batch.
    @inline(__always)
    func hashes(ofRow index: Int) -> listsync_csv_row_hashes {
        hashes[index]
    }

    /// Row `index` of the last batch.
    @inline(__always)
    func row(_ index: Int) -> Row {
        let row = rows[index]
        return Row(
            start: Int(row.start), end: Int(row.end), next: Int(row.next), hasQuote: row.has_quote, firstSeparator: Int(row.first_separator), fieldCount: Int(row.field_count))
    }

    /// Field `column` of `row` (which must have it).
    @inline(__always)
    func field(_ column: Int, of row: Row) -> CSVField {
        precondition(column >= 0 && column < row.fieldCount, "field outside its row")
        let end = Int(separators[row.firstSeparator + column])
        let start = column == 0 ? row.start : Int(separators[row.firstSeparator + column - 1]) + 1
        // A field that starts with a quote is quoted: its value ends before
        // the closing quote, which is right before the separator.
        guard row.hasQuote, start < end, base[start] == ASCII.quote else {
            return CSVField(start: start, end: end, quoting: .none)
        }
        let hasEscapes = memchr(base + start + 1, Int32(ASCII.quote), end - start - 2) != nil
        return CSVField(start: start + 1, end: end - 1, quoting: hasEscapes ? .quotedWithEscapes : .quoted)
    }

    /// The bytes of `field` as they are in the file (inside the quotes for a
    /// quoted field).
    @inline(__always)
    func rawBytes(of field: CSVField) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + field.start, count: field.end - field.start)
    }

    /// Appends the value of `field` (with `""` turned into `"`) to `output`.
    func appendValue(of field: CSVField, to output: inout ByteScratch) {
        guard field.quoting == .quotedWithEscapes else {
            output.append(base + field.start, count: field.end - field.start)
            return
        }
        var index = field.start
        while index < field.end {
            let found = memchr(base + index, Int32(ASCII.quote), field.end - index)
            let runEnd = found.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? field.end
            output.append(base + index, count: runEnd - index)
            guard runEnd < field.end else { break }
            output.append(ASCII.quote)
            index = runEnd + 2
        }
    }

    /// The value of `field` as a string.
    func string(of field: CSVField) -> String {
        guard field.quoting == .quotedWithEscapes else {
            return String(decoding: rawBytes(of: field), as: UTF8.self)
        }
        var value = ByteScratch(capacity: field.end - field.start)
        appendValue(of: field, to: &value)
        return String(decoding: value.bytes(), as: UTF8.self)
    }

    /// Where `field` starts in the file, its opening quote included.
    func startOfField(_ field: CSVField) -> Int {
        field.quoting == .none ? field.start : field.start - 1
    }

    /// The line and column of `offset`.
    func position(of offset: Int) -> SourcePosition {
        SourceLocator.position(ofByteOffset: offset, in: UnsafeBufferPointer(start: base, count: count))
    }
}
