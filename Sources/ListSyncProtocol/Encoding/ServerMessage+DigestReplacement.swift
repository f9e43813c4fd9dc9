extension ServerMessage {
    /// The member a changeset line stored with the version 2 digest carries the version 1 digest
    /// in, right after `digest`, while version 1 clients follow the watch (docs/PROTOCOL.md,
    /// *Protocol version 2*).
    static let v1DigestMember = "digest_v1"

    /// `line` — a `changeset` line or the last chunk of a `snapshot`, as ``encoded()`` and
    /// ``encodedChangeset(watch:cursor:digest:v1Digest:schema:stagesJSON:)`` write them with the
    /// version 2 digest — as a version 1 client gets it: `digest` holds the version 1 digest, the
    /// one `digest_v1` carries or else `v1Digest`, and `digest_v1` is gone. `nil` when the line has
    /// neither, or no digest.
    ///
    /// The server encodes each changeset once and gives a version 1 client this copy, byte for
    /// byte the line it would have encoded with the version 1 digest: both versions lay lines out
    /// alike. The message's own `digest` member is the last `"digest":"` in the line: only
    /// `digest_v1` and `schema` (arrays of strings, and `from`/`to` pairs) follow it, and in a
    /// string every `"` is escaped.
    ///
    /// The line may be held anywhere (an array, a mapping of the file it was written to: `line`
    /// is any collection of its bytes, indexed from 0); the copy is an array.
    ///
    /// - Complexity: O(*n*) in the length of the line.
    public static func version1Line<Line: RandomAccessCollection<UInt8>>(of line: Line, v1Digest: ListDigest?) -> [UInt8]? where Line.Index == Int {
        precondition(line.startIndex == 0, "a line indexed from \(line.startIndex)")
        let hexCount = 64
        guard let value = Self.lastValue(of: "digest", in: line) else { return nil }
        let carried = Array(",\"\(Self.v1DigestMember)\":\"".utf8)
        let carriedStart = value + hexCount + 1
        var replaced = Array(line)
        if line.count >= carriedStart + carried.count + hexCount,
            line[carriedStart..<(carriedStart + carried.count)].elementsEqual(carried)
        {
            // `"digest":"<v2>","digest_v1":"<v1>"` becomes `"digest":"<v1>"`.
            let v1Start = carriedStart + carried.count
            replaced.replaceSubrange(value..<(v1Start + hexCount), with: Array(line[v1Start..<(v1Start + hexCount)]))
            return replaced
        }
        guard let v1Digest else { return nil }
        replaced.replaceSubrange(value..<(value + hexCount), with: v1Digest.description.utf8)
        return replaced
    }

    /// The version 1 digest a stored changeset line carries in `digest_v1`, if it does.
    ///
    /// - Complexity: O(*n*) in the length of the line.
    public static func carriedV1Digest<Line: RandomAccessCollection<UInt8>>(in line: Line) -> ListDigest? where Line.Index == Int {
        guard let value = Self.lastValue(of: Self.v1DigestMember, in: line) else { return nil }
        return ListDigest(String(decoding: line[value..<(value + 64)], as: UTF8.self))
    }

    /// Where the 64 hex digits of the last member `name` (a digest) of `line` start.
    private static func lastValue<Line: RandomAccessCollection<UInt8>>(of name: String, in line: Line) -> Int? where Line.Index == Int {
        let member = Array("\"\(name)\":\"".utf8)
        let hexCount = 64
        var start = line.startIndex + line.count - member.count - hexCount - 1
        while start >= line.startIndex {
            if line[start] == member[0], line[start..<(start + member.count)].elementsEqual(member) {
                let value = start + member.count
                guard line[value + hexCount] == UInt8(ascii: "\"") else { return nil }
                return value
            }
            start -= 1
        }
        return nil
    }
}
