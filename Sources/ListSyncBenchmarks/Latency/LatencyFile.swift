import Foundation

/// A products CSV of a given size, saved the way editors save: the whole file written to a
/// temporary file in the same directory, then renamed over.
struct LatencyFile {
    /// How wide each row is.
    enum Layout {
        /// About 46 bytes a row (`SKU7,item number 7,7.0,category 7`): the latency workloads.
        case wide
        /// About 28 bytes a row (`SKU7,name 7,7.10,c7`): 1M rows make the 27 MiB CSV of
        /// issue 17's whole-list saves.
        case compact
    }

    let url: URL
    let rows: Int
    let layout: Layout
    /// The row lines, without the header; one changes per edit.
    private var lines: [String]

    /// Creates the file with `rows` rows.
    init(url: URL, rows: Int, layout: Layout = .wide) throws {
        self.url = url
        self.rows = rows
        self.layout = layout
        self.lines = (0..<rows).map { Self.row($0, version: 0, layout: layout) }
        try self.write(to: url)
    }

    /// Row `index` as of `version`; its price differs in every version (in the compact layout,
    /// by two digits after the point, so that no two versions' prices are equal as numbers
    /// either, for 90 versions in a row).
    static func row(_ index: Int, version: Int, layout: Layout) -> String {
        switch layout {
        case .wide: "SKU\(index),item number \(index),\(index % 997).\(version),category \(index % 50)"
        case .compact: "SKU\(index),name \(index % 1000),\(index % 97).\(version % 90 + 10),c\(index % 50)"
        }
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
        // Written from the string's own bytes: no second copy of a 10M-row file (520 MB).
        try text.withUTF8 { bytes in try Self.write(bytes, to: url) }
    }

    /// Writes `bytes` to a new file at `url` (truncating one that is there), with `write(2)`.
    private static func write(_ bytes: UnsafeBufferPointer<UInt8>, to url: URL) throws {
        let descriptor = Glibc.open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw LatencySubscribers.Failure(description: "open \(url.path): \(String(cString: strerror(errno)))")
        }
        defer { Glibc.close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                throw LatencySubscribers.Failure(description: "write \(url.path): \(written < 0 ? String(cString: strerror(errno)) : "short write")")
            }
            offset += written
        }
    }

    /// Changes one row (edit `number` picks which) and writes the whole new version to the
    /// temporary file; ``rename()`` then publishes it.
    mutating func prepareEdit(_ number: Int) throws {
        let index = (number &* 7919) % self.rows
        self.lines[index] = Self.row(index, version: number + 1, layout: self.layout)
        try self.write(to: self.temporary)
    }

    /// Changes every row's price (to version `number + 1`'s) and writes the whole new version to
    /// the temporary file; ``rename()`` then publishes it.
    mutating func prepareWholeListEdit(_ number: Int) throws {
        for index in self.lines.indices {
            self.lines[index] = Self.row(index, version: number + 1, layout: self.layout)
        }
        try self.write(to: self.temporary)
    }

    /// The bytes of `count` new rows after the last one (the rows the file will have once they
    /// are appended with ``append(_:)``), as a program that logs rows writes them.
    mutating func prepareAppend(rows count: Int) -> [UInt8] {
        var text = ""
        for index in self.lines.count..<(self.lines.count + count) {
            let line = Self.row(index, version: 0, layout: self.layout)
            self.lines.append(line)
            text += line
            text += "\n"
        }
        self.size += text.utf8.count
        return Array(text.utf8)
    }

    /// Appends `bytes` to the file in place: opened with `O_APPEND`, one `write(2)`, closed (the
    /// daemon waits its settle delay after the close). The benchmark's clock starts before the open.
    func append(_ bytes: [UInt8]) throws {
        let descriptor = Glibc.open(self.url.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw LatencySubscribers.Failure(description: "open \(self.url.path): \(String(cString: strerror(errno)))")
        }
        defer { Glibc.close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw LatencySubscribers.Failure(description: "write \(self.url.path): \(written < 0 ? String(cString: strerror(errno)) : "short write")")
        }
    }

    /// Renames the prepared version over the file: the instant the benchmark's clock starts.
    func rename() throws {
        guard Glibc.rename(self.temporary.path, self.url.path) == 0 else {
            throw LatencySubscribers.Failure(description: "rename: \(String(cString: strerror(errno)))")
        }
    }

    var temporary: URL {
        self.url.deletingLastPathComponent().appendingPathComponent(".\(self.url.lastPathComponent).tmp")
    }
}
