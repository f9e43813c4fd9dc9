/// Builds the value of a CSV record: an object of strings in header order.
struct CSVRecordDecoder {
    let layout: CSVLayout

    /// The value of the row whose bytes (without line ending) are `row`.
    /// Short rows get empty strings, extra fields are dropped — the row was
    /// checked against the ragged-row policy when it was read.
    func value(ofRow row: UnsafeBufferPointer<UInt8>) -> ListValue {
        guard let base = row.baseAddress else {
            return .object(layout.header.map { ListValue.Member(name: $0, value: .string("")) })
        }
        var scanner = CSVScanner(base: base, count: row.count, delimiter: layout.delimiter, rowCapacity: 1)
        // The row was scanned without error when the list was read.
        let scanned = scanner.scan(from: 0, rowLimit: 1).rowCount == 1 ? scanner.row(0) : nil
        var members: [ListValue.Member] = []
        members.reserveCapacity(layout.header.count)
        for (column, name) in layout.header.enumerated() {
            var value = ""
            if let scanned, column < scanned.fieldCount { value = scanner.string(of: scanner.field(column, of: scanned)) }
            members.append(ListValue.Member(name: name, value: .string(value)))
        }
        return .object(members)
    }
}
