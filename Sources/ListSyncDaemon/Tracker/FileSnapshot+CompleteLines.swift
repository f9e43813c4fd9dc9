import FileWatching

extension FileSnapshot {
    /// The snapshot without an unterminated last line — what follows the last `\n` — for a file
    /// read while its writer holds it open (a log appended to): a line the writer has not
    /// finished is not a record. A missing file stays missing.
    ///
    /// - Complexity: O(*n*) in the length of the last line.
    func completeLines() -> FileSnapshot {
        guard case .present(let bytes, let identity) = self else { return self }
        var end = bytes.count
        while end > 0, bytes[end - 1] != UInt8(ascii: "\n") {
            end -= 1
        }
        return end == bytes.count ? self : .present(bytes: bytes[0..<end], identity: identity)
    }
}
