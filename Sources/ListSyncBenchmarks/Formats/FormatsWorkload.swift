/// The lists of the formats benchmark, made deterministic: rows of eight
/// columns — id, name, email, city, amount, quantity, date, note — about
/// 100 bytes each as CSV and 175 as JSON (100 MB and 175 MB for 1M rows).
/// About 10% of the notes have commas, doubled quotes and line breaks, so
/// that CSV quotes them; names and cities are partly non-ASCII.
///
/// Row *i* is a function of *i* alone (a SplitMix64 seeded with it), so files
/// are written a row at a time, and a changed version differs from the
/// original in chosen rows only.
enum FormatsWorkload {
    /// The benchmark's list sizes.
    enum Size: String, CaseIterable {
        case rows100k = "100k"
        case rows1M = "1m"

        var rowCount: Int {
            switch self {
            case .rows100k: 100_000
            case .rows1M: 1_000_000
            }
        }
    }

    /// One row's values as text, in column order.
    struct Row {
        var id: Int
        var name: String
        var email: String
        var city: String
        var amount: String
        var quantity: Int
        var date: String
        var note: String
    }

    static let columns = ["id", "name", "email", "city", "amount", "quantity", "date", "note"]

    private static let firstNames: [(name: String, handle: String)] = [
        ("Ann", "ann"), ("Bob", "bob"), ("Zoë", "zoe"), ("José", "jose"), ("Łukasz", "lukasz"), ("Søren", "soren"),
        ("Ingrid", "ingrid"), ("Mia", "mia"), ("Noah", "noah"), ("Chloé", "chloe"), ("Đorđe", "djordje"),
        ("Aiko", "aiko"), ("Müge", "muge"), ("Omar", "omar"), ("Priya", "priya"), ("Sven", "sven"),
    ]
    private static let lastNames = [
        "Smith", "Müller", "García", "Nowak", "Okafor", "Jensen", "Dubois", "Yılmaz", "Kowalski", "Tanaka",
        "Rossi", "O'Brien", "Silva", "Ng", "Andersson", "Papadopoulos",
    ]
    private static let cities = [
        "Oslo", "München", "São Paulo", "Kraków", "Zürich", "Malmö", "Lima", "Pune", "Toronto", "Kyiv",
        "Reykjavík", "Besançon", "Cape Town", "Osaka", "Austin", "Porto",
    ]
    private static let plainNotes = [
        "", "ok", "call back before noon", "VIP customer since 2019", "paid by card on delivery",
        "leave it at the front door", "gift wrap and no invoice", "repeat order from March",
    ]
    /// Notes with a delimiter, doubled quotes and a line break.
    private static let quotedNotes = [
        "Ask for \"Sam\", not \"Sammy\"\nafter 5 pm",
        "Deliver to: 12, Rue de la Paix\nPorte \"B\"",
        "\"Fragile\", handle with care\r\nthank you",
        "Größe: 42, Farbe \"blau\"\nRückgabe möglich",
    ]

    /// Row `index` (from 0) of the original list.
    static func row(_ index: Int) -> Row {
        row(index, id: index + 1, seed: UInt64(index))
    }

    /// A row with `id` drawn from `seed`.
    static func row(_ index: Int, id: Int, seed: UInt64) -> Row {
        var generator = SplitMix64(seed: seed &* 0x9E37_79B9 &+ 17)
        let first = firstNames[Int(generator.next() % UInt64(firstNames.count))]
        let last = lastNames[Int(generator.next() % UInt64(lastNames.count))]
        let cents = Int(generator.next() % 1_000_000)
        let noteDraw = Int(generator.next() % 100)
        let note = noteDraw < 10
            ? quotedNotes[noteDraw % quotedNotes.count]
            : plainNotes[noteDraw % plainNotes.count]
        let month = Int(generator.next() % 12) + 1
        let day = Int(generator.next() % 28) + 1
        return Row(
            id: id,
            name: "\(first.name) \(last)",
            email: "\(first.handle).\(id)@mail.example.com",
            city: cities[Int(generator.next() % UInt64(cities.count))],
            amount: "\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)",
            quantity: Int(generator.next() % 100) + 1,
            date: "2024-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)",
            note: note
        )
    }

    /// What happens to a row in the changed version: about 1% of rows
    /// differ — 0.8% updated, 0.1% deleted, and 0.1% get a new row after them.
    enum Change {
        case kept
        case updated
        case deleted
        case followedByInsertion
    }

    static func change(ofRow index: Int) -> Change {
        var generator = SplitMix64(seed: UInt64(index) ^ 0xC0FFEE)
        switch generator.next() % 1000 {
        case 0..<8: return .updated
        case 8: return .deleted
        case 9: return .followedByInsertion
        default: return .kept
        }
    }

    /// The rows of the changed version of a list of `count` rows, in order.
    static func changedRows(count: Int, _ body: (Row) -> Void) {
        for index in 0..<count {
            var row = row(index)
            switch change(ofRow: index) {
            case .kept:
                body(row)
            case .updated:
                row.quantity += 1
                body(row)
            case .deleted:
                break
            case .followedByInsertion:
                body(row)
                body(Self.row(index, id: count + index + 1, seed: UInt64(index) ^ 0xFACADE))
            }
        }
    }
}
