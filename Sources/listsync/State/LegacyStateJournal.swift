import ListFormats

/// The state journal as the builds before issue 18's one checksummed record format wrote it
/// (November 2026): one entry a line, each `HEX BODY` — the 128-bit
/// ``ListValue/contentHash`` of the body in 32 hex digits, a space, the body. Read only, so that
/// a `mirror` or `exec` upgraded over such a state resumes where it was; ``ClientState``
/// rewrites it whole in ``StateJournal``'s format at its next save, never appends to it.
///
/// Delete this file, and its one use in ``StateJournal/read()``, once no client can still hold
/// a state written by those builds.
enum LegacyStateJournal {
    /// The entries' bodies of the journal `contents`, and, when the last entry is unfinished (a
    /// crash while it was appended), the length of the whole entries before it. `entries` is
    /// `nil` when an entry before the last does not match its checksum; `unfinishedAfter` is
    /// then that entry's number. O(size of the file).
    static func entries(of contents: [UInt8]) -> (entries: [ArraySlice<UInt8>]?, unfinishedAfter: Int?) {
        let lineEnd = UInt8(ascii: "\n")
        var entries: [ArraySlice<UInt8>] = []
        var start = 0
        while start < contents.count {
            // A last line without its line end was cut short while it was appended.
            guard let end = contents[start...].firstIndex(of: lineEnd) else { break }
            guard let body = Self.body(ofEntry: contents[start..<end]) else {
                // Only the last entry can have been cut short by a crash; one before it is damage.
                guard end + 1 == contents.count else { return (nil, entries.count + 1) }
                break
            }
            entries.append(body)
            start = end + 1
        }
        return (entries, start < contents.count ? start : nil)
    }

    /// The body of `entry` (a line without its line end), or `nil` when its checksum does not match.
    private static func body(ofEntry entry: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let hexCount = 32
        guard entry.count > hexCount, entry[entry.startIndex + hexCount] == UInt8(ascii: " ") else { return nil }
        let body = entry[(entry.startIndex + hexCount + 1)...]
        let checksum = ListValue.string(String(decoding: body, as: UTF8.self)).contentHash.description
        guard entry.prefix(hexCount).elementsEqual(checksum.utf8) else { return nil }
        return body
    }
}
