/// Writes the benchmark's rows as CSV (RFC 4180, quotes only where needed)
/// and as a JSON array with one record per line (id, amount and quantity as
/// numbers).
struct FormatsFileWriter {
    enum Format {
        case csv
        case json
    }

    let format: Format
    private(set) var bytes: [UInt8] = []
    private var rowCount = 0

    init(format: Format, expectedRows: Int) {
        self.format = format
        bytes.reserveCapacity(expectedRows * (format == .csv ? 110 : 190))
        switch format {
        case .csv:
            bytes.append(contentsOf: FormatsWorkload.columns.joined(separator: ",").utf8)
            bytes.append(0x0A)
        case .json:
            bytes.append(UInt8(ascii: "["))
        }
    }

    mutating func append(_ row: FormatsWorkload.Row) {
        switch format {
        case .csv:
            appendCSV(row)
        case .json:
            appendJSON(row)
        }
        rowCount += 1
    }

    /// The finished file.
    consuming func finish() -> [UInt8] {
        if format == .json {
            bytes.append(contentsOf: (rowCount > 0 ? "\n]\n" : "]\n").utf8)
        }
        return bytes
    }

    private mutating func appendCSV(_ row: FormatsWorkload.Row) {
        let fields = ["\(row.id)", row.name, row.email, row.city, row.amount, "\(row.quantity)", row.date, row.note]
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if field.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) {
                bytes.append(UInt8(ascii: "\""))
                for byte in field.utf8 {
                    if byte == UInt8(ascii: "\"") { bytes.append(byte) }
                    bytes.append(byte)
                }
                bytes.append(UInt8(ascii: "\""))
            } else {
                bytes.append(contentsOf: field.utf8)
            }
        }
        bytes.append(0x0A)
    }

    private mutating func appendJSON(_ row: FormatsWorkload.Row) {
        bytes.append(contentsOf: (rowCount > 0 ? ",\n" : "\n").utf8)
        bytes.append(contentsOf: "{\"id\":\(row.id),\"name\":".utf8)
        appendJSONString(row.name)
        bytes.append(contentsOf: ",\"email\":".utf8)
        appendJSONString(row.email)
        bytes.append(contentsOf: ",\"city\":".utf8)
        appendJSONString(row.city)
        bytes.append(contentsOf: ",\"amount\":\(row.amount),\"quantity\":\(row.quantity),\"date\":".utf8)
        appendJSONString(row.date)
        bytes.append(contentsOf: ",\"note\":".utf8)
        appendJSONString(row.note)
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func appendJSONString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
            case 0x0A: bytes.append(contentsOf: "\\n".utf8)
            case 0x0D: bytes.append(contentsOf: "\\r".utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
