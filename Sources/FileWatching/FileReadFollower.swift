/// Follows a read of a file as its bytes arrive, piece by piece, while each piece is still in
/// the CPU's cache: what would otherwise be a second pass over the whole file in memory (the
/// incremental reader's chunk hashes, issue 19) costs no more than reading it.
///
/// ``FileSnapshot/read(atPath:maximumAttempts:reusing:following:)`` calls ``begin(size:)`` at
/// the start of each attempt, then ``follow(_:)`` after each piece it read into its buffer. The
/// follower learns nothing of an attempt's outcome: whoever uses what it computed checks that
/// the snapshot's bytes are the ones it saw (their address and count).
public protocol FileReadFollower: Sendable {
    /// An attempt to read `size` bytes (the file's size at `fstat`) starts: forget what an
    /// earlier attempt read.
    mutating func begin(size: Int)
    /// `bytes` are the bytes read so far by this attempt, from the file's start; each call's
    /// `bytes` extend the last call's (the same buffer, more of it).
    mutating func follow(_ bytes: UnsafeRawBufferPointer)
}

/// Follows nothing: a plain read.
public struct NoFileReadFollower: FileReadFollower {
    public init() {}
    public mutating func begin(size: Int) {}
    public mutating func follow(_ bytes: UnsafeRawBufferPointer) {}
}
