import DurableFiles

/// What is wrong with a watch's state: the file, and why it cannot be used.
struct StateDamage: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why a state file cannot be used.
    enum Reason: Error, Hashable, Sendable, CustomStringConvertible {
        /// It ends in the middle of something (a crash mid-write, a full disk, a hand edit).
        case truncated(at: Int)
        /// A record's checksum does not match its content.
        case checksumMismatch(at: Int)
        /// It is not a state file of this version, or holds impossible values.
        case malformed(String, at: Int)
        /// It is missing while the other state files are there.
        case missing
        /// It cannot be read.
        case unreadable(StateFileError)
        /// It reads, but does not agree with the other state (another epoch, a different digest…).
        case inconsistent(String)

        /// A record that does not read (``ChecksummedRecordReader``), in these words.
        init(_ damage: ChecksummedRecordDamage) {
            switch damage {
            case .truncated(let offset): self = .truncated(at: offset)
            case .checksumMismatch(let offset): self = .checksumMismatch(at: offset)
            }
        }

        var description: String {
            switch self {
            case .truncated(let offset): return "truncated (at byte \(offset))"
            case .checksumMismatch(let offset): return "checksum mismatch in the record at byte \(offset)"
            case .malformed(let what, let offset): return "\(what) (at byte \(offset))"
            case .missing: return "missing"
            case .unreadable(let error): return "unreadable: \(error)"
            case .inconsistent(let what): return what
            }
        }
    }

    /// The damaged file.
    var path: String
    var reason: Reason

    var description: String { "\(self.path): \(self.reason)" }
}
