import Foundation

/// A products CSV of a given size, saved the way editors save: the whole file written to a
/// temporary file in the same directory, then renamed over.
struct LatencyFile {
    let url: URL
    let rows: Int
    /// The row lines, without the header; one changes per edit.
    private var lines: [String]

    /// Creates the file with `rows` rows.
    init(url: URL, rows: Int) throws {
        self.url = url
        self.rows = rows
        self.lines = (0..<rows).map { Self.row($0, version: 0) }
        try self.write(to: url)
    }

    private static func row(_ index: Int, version: Int) -> String {
        "SKU\(index),item number \(index),\(index % 997).\(version),category \(index % 50)"
    }

    /// The size of the file as last written, in bytes.
    private(set) var size = 0

    private mutating func write(to url: URL) throws {
        var text = "sku,name,price,category\n"
        text.reserveCapacity(self.rows * 48)
        for line in self.lines {
            text += line
            text += "\n"
        }
        self.size = text.utf8.count
        try Data(text.utf8).write(to: url)
    }

    /// Changes one row (edit `number` picks which) and writes the whole new version to the
    /// temporary file; ``rename()`` then publishes it.
    mutating func prepareEdit(_ number: Int) throws {
        let index = (number &* 7919) % self.rows
        self.lines[index] = Self.row(index, version: number + 1)
        try self.write(to: self.temporary)
    }

    /// Renames the prepared version over the file: the instant the benchmark's clock starts.
    func rename() throws {
        guard Glibc.rename(self.temporary.path, self.url.path) == 0 else {
            throw LatencySubscribers.Failure(description: "rename: \(String(cString: strerror(errno)))")
        }
    }

    private var temporary: URL {
        self.url.deletingLastPathComponent().appendingPathComponent(".\(self.url.lastPathComponent).tmp")
    }
}
