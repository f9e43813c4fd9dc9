import Glibc
import Testing

/// Writing files the way programs do.
enum FileContent {
    /// Creates or truncates `path` and writes `text` in one go.
    static func write(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        try self.append(Array(text.utf8), to: descriptor, path: path)
    }

    static func append(_ bytes: some Collection<UInt8>, to descriptor: Int32, path: String) throws {
        let bytes = Array(bytes)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw TestFailure("write \(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    static func rename(_ from: String, _ to: String) throws {
        guard Glibc.rename(from, to) == 0 else { throw TestFailure("rename \(from) \(to): \(String(cString: strerror(errno)))") }
    }

    static func unlink(_ path: String) throws {
        guard Glibc.unlink(path) == 0 else { throw TestFailure("unlink \(path): \(String(cString: strerror(errno)))") }
    }

    /// Runs a tool (`sed`, `cp`) to its end; fails unless it exits 0.
    static func tool(_ path: String, _ arguments: [String], scratch: String) async throws {
        let process = try ChildProcess(path, arguments, outputPath: scratch + "/tool.out", errorPath: scratch + "/tool.err")
        let status = try await process.waitForExit()
        guard status == 0 else { throw TestFailure("\(path) \(arguments) exited \(status): \(process.errorOutput)") }
    }
}

/// The ways editors and scripts save a file, each a different sequence of inotify events for the
/// daemon (docs of issue 4, §2).
enum SaveStrategy: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Truncate and write in place, in two writes with a pause between: `MODIFY, MODIFY,
    /// CLOSE_WRITE`, with partial content visible in between.
    case truncateAndWrite
    /// Write a temporary file, rename it over (`MOVED_TO`).
    case writeTemporaryAndRename
    /// `sed -i`, which writes a temporary file and renames it over.
    case sedInPlace
    /// vim's backup dance: the original renamed to `file~`, the new file written, `file~` deleted —
    /// the target is briefly missing.
    case vimBackup
    /// `cp` over the file: truncate and write by another program.
    case copyOver
    /// Delete the file, then create it again.
    case deleteAndRecreate

    var testDescription: String { self.rawValue }

    /// Replaces the content of `path` with `text`; `scratch` is a directory for helper files.
    func save(_ text: String, to path: String, scratch: String) async throws {
        switch self {
        case .truncateAndWrite:
            let bytes = Array(text.utf8)
            let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            try FileContent.append(bytes[..<(bytes.count / 2)], to: descriptor, path: path)
            // Half a file stays visible for a moment, as when a program writes slowly.
            try await Task.sleep(for: .milliseconds(30))
            try FileContent.append(bytes[(bytes.count / 2)...], to: descriptor, path: path)
        case .writeTemporaryAndRename:
            try FileContent.write(text, to: path + ".tmp")
            try FileContent.rename(path + ".tmp", path)
        case .sedInPlace:
            // Every line deleted, the new content read in after the last: the whole file replaced.
            try FileContent.write(text, to: scratch + "/sed-input")
            try await FileContent.tool("/bin/sed", ["-i", "-e", "$r \(scratch)/sed-input", "-e", "d", path], scratch: scratch)
        case .vimBackup:
            try FileContent.rename(path, path + "~")
            try FileContent.write(text, to: path)
            try FileContent.unlink(path + "~")
        case .copyOver:
            try FileContent.write(text, to: scratch + "/cp-source")
            try await FileContent.tool("/bin/cp", [scratch + "/cp-source", path], scratch: scratch)
        case .deleteAndRecreate:
            try FileContent.unlink(path)
            try FileContent.write(text, to: path)
        }
    }
}

/// Versions of a products CSV: rows deleted, inserted, updated, reordered and moved between
/// categories (sections) from one version to the next.
enum ProductVersions {
    static let header = "sku,name,price,category"

    /// Version `number`: 24 candidate rows, every fifth (shifting) left out, prices and categories
    /// changing, order rotated.
    static func csv(_ number: Int) -> String {
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
    static func bulk(rows: Int, nameLength: Int) -> String {
        let padding = String(repeating: "x", count: nameLength)
        return ([header] + (0..<rows).map { "B\($0),\(padding),1.00,bulk" }).joined(separator: "\n") + "\n"
    }

    /// Content that does not parse: a quoted field never closed.
    static let invalid = header + "\nS1,\"item 1,3.00,fruit\nS2,item 2,4.00,veg\n"
}
