extension ServerMessage {
    /// `line` — a `changeset` line or the last chunk of a `snapshot`, as ``encoded()`` and
    /// ``encodedChangeset(watch:cursor:digest:schema:stagesJSON:)`` write them — with the value of
    /// its `digest` replaced by `digest`; `nil` when it has no digest.
    ///
    /// The server encodes each changeset once, with the version 2 digest (docs/PROTOCOL.md,
    /// *Protocol version 2*), and gives a version 1 client this copy, byte for byte the line it
    /// would have encoded with the version 1 digest: both versions lay lines out alike. The
    /// message's own `digest` member is the last `"digest":"` in the line: only `schema` (arrays
    /// of strings, and `from`/`to` pairs) follows it, and in a string every `"` is escaped.
    ///
    /// - Complexity: O(*n*) in the length of the line.
    public static func replacingDigest(in line: [UInt8], with digest: ListDigest) -> [UInt8]? {
        let member = Array("\"digest\":\"".utf8)
        let hexCount = 64
        guard line.count >= member.count + hexCount else { return nil }
        var start = line.count - member.count - hexCount
        while start >= 0 {
            if line[start] == member[0], line[start..<(start + member.count)].elementsEqual(member) {
                let value = start + member.count
                guard line.count > value + hexCount, line[value + hexCount] == UInt8(ascii: "\"") else { return nil }
                var replaced = line
                replaced.replaceSubrange(value..<(value + hexCount), with: digest.description.utf8)
                return replaced
            }
            start -= 1
        }
        return nil
    }
}
