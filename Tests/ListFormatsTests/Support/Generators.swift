import ListFormats
import PropertyBased

/// Generators of the awkward inputs readers must get right: quotes,
/// separators, CR and LF, non-ASCII text, empty fields, escapes, numbers of
/// every form.
enum Generators {
    /// A table: unique, non-empty column names and rows of as many fields.
    struct Table: Sendable, CustomStringConvertible {
        var columns: [String]
        var rows: [[String]]

        var description: String { "Table(columns: \(columns), rows: \(rows))" }
    }

    /// Characters that matter to CSV and JSON, plus plain ones.
    static let awkwardCharacters: [Character] = [
        "a", "b", "Z", "0", "7", " ", ",", ";", "|", "\t", "\"", "\"", "'", "\n", "\r", "\r\n", "\\", "/", "é", "中",
        "😀", "\u{1}", "{", "}", "[", "]", ":",
    ]

    static func text(_ rng: inout any SeededRandomNumberGenerator, maxLength: Int = 8) -> String {
        let length = Int.random(in: 0...maxLength, using: &rng)
        return String((0..<length).map { _ in awkwardCharacters.randomElement(using: &rng) ?? "a" })
    }

    /// A field: often empty or plain, sometimes awkward.
    static func field(_ rng: inout any SeededRandomNumberGenerator) -> String {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: ""
        case 1, 2: String(Int.random(in: 0...99999, using: &rng))
        default: text(&rng)
        }
    }

    static let table = Generator<Table, Shrink.None<Table>> { rng in
        let columnCount = Int.random(in: 1...5, using: &rng)
        let columns = (0..<columnCount).map { index in
            text(&rng, maxLength: 4).replacingCharacters(ofAll: ["\u{1}"]) + "c\(index)"
        }
        let rows = (0..<Int.random(in: 0...8, using: &rng)).map { _ in
            (0..<columnCount).map { _ in field(&rng) }
        }
        return Table(columns: columns, rows: rows)
    }

    /// Number literals of every JSON form.
    static func number(_ rng: inout any SeededRandomNumberGenerator) -> String {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: String(Int.random(in: -1000...1000, using: &rng))
        case 1: "12345678901234567890123456789"
        case 2: "\(Int.random(in: 0...99, using: &rng)).\(Int.random(in: 0...999, using: &rng))"
        case 3: "-\(Int.random(in: 1...9, using: &rng))e\(Int.random(in: -400...400, using: &rng))"
        case 4: "0.1E+2"
        default: "-0"
        }
    }

    static func value(_ rng: inout any SeededRandomNumberGenerator, depth: Int) -> ListValue {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(number(&rng))
        case 3, 4, 5: return .string(text(&rng))
        case 6: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in value(&rng, depth: depth - 1) })
        default: return object(&rng, depth: depth - 1)
        }
    }

    static func object(_ rng: inout any SeededRandomNumberGenerator, depth: Int) -> ListValue {
        var names = Set<String>()
        var members: [ListValue.Member] = []
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            let name = text(&rng, maxLength: 3)
            if names.insert(name).inserted { members.append(ListValue.Member(name: name, value: value(&rng, depth: depth))) }
        }
        return .object(members)
    }

    /// A record: mostly objects, sometimes a scalar.
    static let record = Generator<ListValue, Shrink.None<ListValue>> { rng in
        Int.random(in: 0..<5, using: &rng) == 0 ? value(&rng, depth: 0) : object(&rng, depth: 2)
    }
}

extension String {
    /// The string without the given characters.
    func replacingCharacters(ofAll characters: Set<Character>) -> String {
        String(filter { !characters.contains($0) })
    }
}
