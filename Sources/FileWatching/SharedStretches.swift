/// The stretches at the start and at the end of a file's new version that a read found equal to
/// the version before it, and holds as that version's storage
/// (``FileSnapshot/read(atPath:maximumAttempts:sharingWith:boundaries:)``).
///
/// Both are cut back to the previous version's chunk boundaries, so whoever keeps per-chunk
/// state of the previous version (the incremental reader's records and hashes) keeps it for
/// these stretches without looking at their bytes again: the first ``prefix`` bytes of both
/// versions are equal, and the last ``suffix`` bytes of both versions are equal (at offsets
/// moved by the change in length). They never overlap in the new version.
public struct SharedStretches: Hashable, Sendable, CustomStringConvertible {
    /// How many bytes at the start equal the previous version's first bytes; a chunk boundary
    /// of the previous version.
    public var prefix: Int
    /// How many bytes at the end equal the previous version's last bytes; the previous
    /// version's count minus a chunk boundary of it.
    public var suffix: Int

    public init(prefix: Int, suffix: Int) {
        self.prefix = prefix
        self.suffix = suffix
    }

    /// Nothing known equal: a whole read.
    public static let none = SharedStretches(prefix: 0, suffix: 0)

    public var description: String {
        "\(prefix) bytes shared at the start, \(suffix) at the end"
    }
}
