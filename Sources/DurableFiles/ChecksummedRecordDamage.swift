/// Why a record cannot be read, and where it starts.
public enum ChecksummedRecordDamage: Error, Hashable, Sendable, CustomStringConvertible {
    /// The record (its frame header or its payload) runs past the end of the bytes: a crash
    /// while it was written, a full disk, a cut file.
    case truncated(at: Int)
    /// The payload's checksum does not match the record's: the record is garbled.
    case checksumMismatch(at: Int)

    /// The byte offset where the bad record starts.
    public var offset: Int {
        switch self {
        case .truncated(let offset), .checksumMismatch(let offset): offset
        }
    }

    public var description: String {
        switch self {
        case .truncated(let offset): "truncated (at byte \(offset))"
        case .checksumMismatch(let offset): "checksum mismatch in the record at byte \(offset)"
        }
    }
}
