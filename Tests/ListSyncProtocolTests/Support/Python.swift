import Foundation
import ListSyncTestSupport

/// Python's `hashlib` is the independent reference for digests.
extension Python {
    /// Runs `script` with `input` as JSON on its standard input; returns what it prints, trimmed.
    static func run(_ script: String, input: Any) async throws -> String {
        try await output(of: script, input: input, passing: .standardInput).trimmingCharacters(in: .whitespacesAndNewlines)
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
