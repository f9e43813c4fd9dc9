/// Collects the member names of object records, in order of first
/// appearance: the schema of a JSON list.
///
/// The scanner calls it only for records whose shape differs from the
/// previous record's (see ``JSONMemberOrder``), so it costs nothing on lists
/// of uniform records.
struct JSONSchemaCollector {
    /// The names found so far, in order of first appearance.
    private(set) var columns: [String] = []
    private var known: Set<String> = []

    /// Takes note of one object record's member names.
    mutating func add(_ members: UnsafeBufferPointer<MemberSpan>, base: UnsafePointer<UInt8>) {
        for member in members {
            let raw = UnsafeRawBufferPointer(start: base + member.nameStart, count: member.nameEnd - member.nameStart)
            var text = String(decoding: raw, as: UTF8.self)
            if member.isEscaped {
                var decoded = ByteScratch(capacity: raw.count)
                JSONString.appendDecoded(raw, to: &decoded)
                text = String(decoding: decoded.bytes(), as: UTF8.self)
            }
            if known.insert(text).inserted { columns.append(text) }
        }
    }
}
