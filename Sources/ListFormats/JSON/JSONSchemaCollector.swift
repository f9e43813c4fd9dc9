/// Collects the member names of object records, in order of first
/// appearance: the schema of a JSON list.
///
/// The scanners call it only for records whose shape differs from the
/// previous record's (see ``JSONMemberOrder`` and ``JSONFlatRecordScanner``),
/// so it costs nothing on lists of uniform records.
struct JSONSchemaCollector {
    /// The names found so far, in order of first appearance.
    private(set) var columns: [String] = []
    private var known: Set<String> = []

    /// Takes note of one object record's member names.
    mutating func add(_ members: UnsafeBufferPointer<MemberSpan>, base: UnsafePointer<UInt8>) {
        for member in members {
            add(UnsafeRawBufferPointer(start: base + member.nameStart, count: member.nameEnd - member.nameStart),
                isEscaped: member.isEscaped)
        }
    }

    /// Takes note of the names `other` found (in a later part of the file).
    mutating func add(columnsOf other: JSONSchemaCollector) {
        for name in other.columns where known.insert(name).inserted { columns.append(name) }
    }

    /// Takes note of the member name whose bytes (between the quotes) are `raw`.
    mutating func add(_ raw: UnsafeRawBufferPointer, isEscaped: Bool) {
        var text = String(decoding: raw, as: UTF8.self)
        if isEscaped {
            var decoded = ByteScratch(capacity: raw.count)
            JSONString.appendDecoded(raw, to: &decoded)
            text = String(decoding: decoded.bytes(), as: UTF8.self)
        }
        if known.insert(text).inserted { columns.append(text) }
    }
}
