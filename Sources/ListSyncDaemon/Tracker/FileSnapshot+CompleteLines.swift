import FileWatching

extension FileSnapshot {
    /// The snapshot without an unterminated last line — what follows the last `\n` — for a file
    /// read while its writer holds it open (a log appended to): a line the writer has not
    /// finished is not a record. A missing file stays missing.
    ///
    /// - Complexity: O(*n*) in the length of the last line.
    func completeLines() -> FileSnapshot {
        guard case .present(let bytes, let identity) = self else { return self }
        let end = bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        return end == bytes.count ? self : .present(bytes: Array(bytes[..<end]), identity: identity)
    }
}
