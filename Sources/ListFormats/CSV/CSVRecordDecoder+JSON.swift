/// A CSV record's published value written straight from the row's bytes as compact JSON, without
/// building its ``ListValue``: what a snapshot encodes a million records with.
extension CSVRecordDecoder {
    /// Appends the published value of the row whose bytes (without line ending) are `row` — an
    /// object of strings in header order, ignored columns left out — as compact JSON: exactly the
    /// bytes `JSONValueEncoder.append(publishedValue(value(ofRow: row)))` writes (short rows get
    /// empty strings, extra fields are dropped). The row's bytes are valid UTF-8 (the list was
    /// read with its UTF-8 checked), so each field's bytes are its string's.
    ///
    /// - Complexity: O(row length).
    func appendPublishedJSON<Output: JSONOutput & ~Copyable>(ofRow row: UnsafeBufferPointer<UInt8>, to output: inout Output) {
        guard let base = row.baseAddress else {
            self.appendObject(to: &output) { _, output in Self.appendEmptyString(to: &output) }
            return
        }
        var scanner = CSVScanner(base: base, count: row.count, delimiter: layout.delimiter, rowCapacity: 1)
        // The row was scanned without error when the list was read.
        let scanned = scanner.scan(from: 0, rowLimit: 1).rowCount == 1 ? scanner.row(0) : nil
        self.appendObject(to: &output) { column, output in
            guard let scanned, column < scanned.fieldCount else {
                Self.appendEmptyString(to: &output)
                return
            }
            let field = scanner.field(column, of: scanned)
            if field.quoting == .quotedWithEscapes {
                var value = ByteScratch(capacity: field.end - field.start)
                scanner.appendValue(of: field, to: &value)
                JSONString.appendQuoted(value.bytes(), to: &output)
            } else {
                JSONString.appendQuoted(scanner.rawBytes(of: field), to: &output)
            }
        }
    }

    /// `{"name":value,…}` over the published columns, `value` writing column `i`'s string.
    private func appendObject<Output: JSONOutput & ~Copyable>(
        to output: inout Output, value: (_ column: Int, _ output: inout Output) -> Void
    ) {
        output.append(ASCII.openBrace)
        var first = true
        for (column, name) in layout.header.enumerated() where !(column < layout.ignored.count && layout.ignored[column]) {
            if !first { output.append(ASCII.comma) }
            first = false
            JSONValueEncoder.appendString(name, to: &output)
            output.append(ASCII.colon)
            value(column, &output)
        }
        output.append(ASCII.closeBrace)
    }

    private static func appendEmptyString<Output: JSONOutput & ~Copyable>(to output: inout Output) {
        output.append(ASCII.quote)
        output.append(ASCII.quote)
    }
}
