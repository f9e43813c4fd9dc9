import Foundation

/// A products CSV (or NDJSON file, or JSON array: ``Format``) of a given size, saved the way
/// editors save: the whole file written to a temporary file in the same directory, then renamed
/// over.
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
    let format: Format
    /// The records in `format`, without the header or separators; one changes per edit.
    private var lines: [String]

    /// Creates the file with `rows` rows.
    init(url: URL, rows: Int, layout: Layout = .wide, format: Format = .csv) throws {
        self.url = url
        self.rows = rows
        self.layout = layout
        self.format = format
        self.lines = (0..<rows).map { format.record(csvRow: Self.row($0, version: 0, layout: layout)) }
        try self.write(to: url)
    }

    /// Row `index` as of `version`, in the file's format.
    private func record(_ index: Int, version: Int) -> String {
        self.format.record(csvRow: Self.row(index, version: version, layout: self.layout))
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

    /// Whether a version written to the temporary file is `fsync`ed before ``rename()`` (before
    /// the benchmark's clock starts), as a careful writer saves: the rename then has no data of
    /// the file left to write out.
    var syncsBeforeRename = false

    private mutating func write(to url: URL) throws {
        var text = self.format.prefix
        text.reserveCapacity(self.rows * (self.format == .csv ? 48 : 96))
        for (number, line) in self.lines.enumerated() {
            if number > 0 { text += self.format.separator }
            text += line
        }
        if !self.lines.isEmpty { text += "\n" }
        text += self.format.suffix
        self.size = text.utf8.count
        // Written from the string's own bytes: no second copy of a 10M-row file (520 MB).
        let sync = self.syncsBeforeRename && url == self.temporary
        try text.withUTF8 { bytes in try Self.write(bytes, to: url, sync: sync) }
    }

    /// Writes `bytes` to a new file at `url` (truncating one that is there), with `write(2)`, and
    /// `fsync`s it when `sync`.
    private static func write(_ bytes: UnsafeBufferPointer<UInt8>, to url: URL, sync: Bool) throws {
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
        guard !sync || fsync(descriptor) == 0 else {
            throw LatencySubscribers.Failure(description: "fsync \(url.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Where ``prepareEdit(_:)``'s edits fall.
    var editPlaces: EditPlaces = .forward

    /// Changes one row (edit `number` picks which, at ``editPlaces``) and writes the whole new
    /// version to the temporary file; ``rename()`` then publishes it.
    mutating func prepareEdit(_ number: Int) throws {
        let index = self.editPlaces.row(ofEdit: number, rows: self.rows)
        self.lines[index] = self.record(index, version: number + 1)
        try self.write(to: self.temporary)
    }

    /// Changes every row's price (to version `number + 1`'s) and writes the whole new version to
    /// the temporary file; ``rename()`` then publishes it.
    mutating func prepareWholeListEdit(_ number: Int) throws {
        for index in self.lines.indices {
            self.lines[index] = self.record(index, version: number + 1)
        }
        try self.write(to: self.temporary)
    }

    /// The bytes of `count` new rows after the last one (the rows the file will have once they
    /// are appended with ``append(_:)``), as a program that logs rows writes them: in a CSV or
    /// NDJSON file, the new lines; in a JSON array, the new objects and the array's end again,
    /// written over its old end (`\n]\n`).
    mutating func prepareAppend(rows count: Int) -> [UInt8] {
        let hadRecords = !self.lines.isEmpty
        var records: [String] = []
        for index in self.lines.count..<(self.lines.count + count) {
            records.append(self.record(index, version: 0))
        }
        self.lines += records
        let text: String
        let overwritten: Int
        switch self.format {
        case .csv, .ndjson:
            text = records.map { $0 + "\n" }.joined()
            overwritten = 0
        case .json:
            text = (hadRecords ? self.format.separator : "") + records.joined(separator: self.format.separator) + "\n" + self.format.suffix
            overwritten = (hadRecords ? 1 : 0) + self.format.suffix.utf8.count
        }
        self.size += text.utf8.count - overwritten
        return Array(text.utf8)
    }

    /// Appends `bytes` (from ``prepareAppend(rows:)``) to the file in place: one `write(2)`,
    /// then closed (the daemon waits its settle delay after the close). The benchmark's clock
    /// starts before the open. A CSV or NDJSON file is opened with `O_APPEND`; a JSON array's
    /// bytes are written (`pwrite(2)`) over its closing `]`, so that they go before it.
    func append(_ bytes: [UInt8]) throws {
        let inArray = self.format == .json
        let descriptor = Glibc.open(self.url.path, O_WRONLY | (inArray ? 0 : O_APPEND) | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw LatencySubscribers.Failure(description: "open \(self.url.path): \(String(cString: strerror(errno)))")
        }
        defer { Glibc.close(descriptor) }
        let offset = off_t(self.size - bytes.count)
        let written = bytes.withUnsafeBytes { buffer in
            inArray ? Glibc.pwrite(descriptor, buffer.baseAddress, buffer.count, offset) : Glibc.write(descriptor, buffer.baseAddress, buffer.count)
        }
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
