import ListSyncTestSupport
import Testing

/// The real `listsyncd` binary, real files, a real socket and protocol clients over plain sockets.
/// One at a time: each test runs a daemon, and the machine has two cores. Two at a time made the
/// run shorter but, beside the rest of the run, starved timed tests in this and other targets
/// (a partial-line limit, a rename's announcement) in two full runs of three on an idle machine.
@Suite(.atMostAtOnce(1))
struct EndToEndTests {
    @Suite struct SaveStrategies {}
    @Suite struct Subscribers {}
    @Suite struct Robustness {}
    @Suite struct Lifecycle {}
    @Suite struct Reload {}
    @Suite struct Load {}
    @Suite struct Persistence {}
}

/// Versions of test lists, each differing from the previous one by updates, inserts, deletes,
/// moves within and across sections.
enum Lists {
    /// A CSV catalogue, sectioned by `category`, keyed by `sku`.
    static func catalogue(_ version: Int, delimiter: String = ",") -> String {
        var rows: [[String]] = []
        for id in 0..<(12 + version * 2) where (id + version) % 5 != 0 {
            let category = ["fruit", "veg", "dairy"][(id + (id % 4 == 0 ? version : 0)) % 3]
            let price = id % 3 == version % 3 ? "\(id).\(version)" : "\(id).0"
            rows.append(["S\(id)", "item \(id)", price, category])
        }
        if version % 2 == 1 {
            rows.reverse()
        }
        return (["sku", "name", "price", "category"] + []).joined(separator: delimiter) + "\n"
            + rows.map { $0.joined(separator: delimiter) + "\n" }.joined()
    }

    /// A JSON object of arrays (sections by member name), keyed by `id`.
    static func sectionedJSON(_ version: Int) -> String {
        let names = version % 3 == 2 ? ["b", "a", "c"] : ["a", "b", "c"]
        let sections = names.enumerated().map { index, name in
            let records = (0..<(3 + (index + version) % 4)).map { id in
                #"{"id": \#(index * 10 + id), "label": "v\#((id + version) % 3)", "tags": ["x", \#(id)]}"#
            }
            return "\"\(name)\": [\(records.joined(separator: ", "))]"
        }
        return "{\n" + sections.joined(separator: ",\n") + "\n}\n"
    }

    /// A CSV catalogue of `rows` rows, sectioned by `category`, keyed by `sku` (like
    /// ``catalogue(_:delimiter:)``); each version changes the price of one row.
    static func products(rows: Int, version: Int) -> String {
        "sku,name,price,category\n"
            + (0..<rows).map { id in
                "S\(id),item \(id) with a name of some length,\(id == version % rows ? version : 0).\(id % 100),\(["fruit", "veg", "dairy"][id % 3])\n"
            }.joined()
    }

    /// NDJSON, keyed by `id`, linear.
    static func log(_ version: Int) -> String {
        (0..<(5 + version)).map { #"{"id":\#($0),"state":"old","n":\#($0 * version)}"# + "\n" }.joined()
    }
}
