/// Versions of a products CSV: rows deleted, inserted, updated, reordered and moved between
/// categories (sections) from one version to the next.
package enum ProductVersions {
    package static let header = "sku,name,price,category"

    /// Version `number`: 24 candidate rows, every fifth (shifting) left out, prices and categories
    /// changing, order rotated.
    package static func csv(_ number: Int) -> String {
        let categories = ["fruit", "veg", "dairy", "bakery"]
        var rows: [String] = []
        for index in 0..<24 where (index + number) % 5 != 0 {
            let category = categories[(index + number / 2) % (number % 3 == 2 ? 3 : 4)]
            rows.append("S\(index),item \(index),\((index * (number + 3)) % 17).\(number % 10)0,\(category)")
        }
        let rotation = (number * 7) % max(rows.count, 1)
        return ([header] + rows[rotation...] + rows[..<rotation]).joined(separator: "\n") + "\n"
    }

    /// A version of `rows` rows whose names are `nameLength` characters long: about
    /// `rows * (nameLength + 25)` bytes, for payloads larger than a pipe's buffer.
    package static func bulk(rows: Int, nameLength: Int) -> String {
        let padding = String(repeating: "x", count: nameLength)
        return ([header] + (0..<rows).map { "B\($0),\(padding),1.00,bulk" }).joined(separator: "\n") + "\n"
    }

    /// Content that does not parse: a quoted field never closed.
    package static let invalid = header + "\nS1,\"item 1,3.00,fruit\nS2,item 2,4.00,veg\n"
}
