import Foundation

/// Runs a Python 3 script with a JSON input on stdin and returns what it prints, trimmed:
/// Python's `hashlib` is the independent reference for digests.
enum Python {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ script: String, input: Any) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let standardInput = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = standardInput
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        standardInput.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: input))
        try standardInput.fileHandleForWriting.close()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "python3 failed: \(errorText)") }
        return printed.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The digest as docs/PROTOCOL.md defines it, computed by Python from hex hashes:
    /// input `{"columns": ["<name>", ...], "sections": [{"model": "<32 hex>", "records": ["<32 hex>", ...]}, ...]}`.
    static let digestScript = """
        import hashlib, json, struct, sys
        h = hashlib.sha256()
        data = json.load(sys.stdin)
        h.update(struct.pack(">Q", len(data["columns"])))
        for name in data["columns"]:
            encoded = name.encode("utf-8")
            h.update(struct.pack(">Q", len(encoded)))
            h.update(encoded)
        for section in data["sections"]:
            h.update(bytes.fromhex(section["model"]))
            h.update(struct.pack(">Q", len(section["records"])))
            for record in section["records"]:
                h.update(bytes.fromhex(record))
        print(h.hexdigest())
        """
}
