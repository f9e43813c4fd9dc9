import Glibc

/// Writing files the way programs do.
package enum FileContent {
    /// The text of the file at `path`; fails when it cannot be opened.
    package static func read(_ path: String) throws -> String {
        guard let file = fopen(path, "r") else { throw TestFailure("cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 {
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Creates or truncates `path` and writes `text` in one go.
    package static func write(_ text: String, to path: String) throws {
        try self.write(bytes: Array(text.utf8), to: path)
    }

    /// Creates or truncates `path` and writes `bytes` in one go.
    package static func write(bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        try self.append(bytes, to: descriptor, path: path)
    }

    package static func append(_ bytes: some Collection<UInt8>, to descriptor: Int32, path: String) throws {
        let bytes = Array(bytes)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw TestFailure("write \(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    package static func rename(_ from: String, _ to: String) throws {
        guard Glibc.rename(from, to) == 0 else { throw TestFailure("rename \(from) \(to): \(String(cString: strerror(errno)))") }
    }

    package static func unlink(_ path: String) throws {
        guard Glibc.unlink(path) == 0 else { throw TestFailure("unlink \(path): \(String(cString: strerror(errno)))") }
    }

    /// Runs a tool (`sed`, `cp`) to its end; fails unless it exits 0.
    package static func tool(_ path: String, _ arguments: [String], scratch: String) async throws {
        try await ChildProcess.runToEnd(path, arguments, outputPath: scratch + "/tool.out", errorPath: scratch + "/tool.err")
    }
}

/// The file's content as text; empty when it cannot be read.
package func readFile(_ path: String) -> String {
    (try? FileContent.read(path)) ?? ""
}
