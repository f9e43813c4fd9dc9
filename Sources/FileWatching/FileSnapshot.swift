import DurableFiles
import Glibc

/// A watched file's content at one moment, or the fact that it is not there.
///
/// Produced by ``read(atPath:maximumAttempts:)``, which guarantees the bytes were not written
/// while being read: the consumer of a ``FileWatchEvent/changed(path:)`` never parses a torn file.
public enum FileSnapshot: Hashable, Sendable {
    /// The file's complete bytes and its identity while they were read.
    case present(bytes: FileBytes, identity: FileIdentity)
    /// Nothing is at the path (or a directory on the way is gone).
    case missing

    /// Reads the file at `path` whole, checking its `stat` identity (inode, size, mtime, ctime)
    /// before and after the read — through the open descriptor and through the path — and reading
    /// again if anything moved, up to `maximumAttempts` times with short growing pauses
    /// (1, 2, 4… ms). Blocks: call it where blocking is fine.
    ///
    /// What the check cannot see: the kernel stamps mtime when a `write(2)` *starts*, so a read
    /// that begins after that stamp but overlaps the write's copying can return a mix of old and
    /// new bytes under an unchanged identity (measured on ext4 with same-size in-place rewrites).
    /// Inotify reports that write (`IN_MODIFY`) when it completes, so the watcher announces the
    /// file again and the next read is whole: a consumer that re-reads on every ``FileWatchEvent``
    /// always ends at the file's final content.
    ///
    /// Reads O(*size*) bytes per attempt into one buffer sized from `fstat`.
    ///
    /// With `spare`, the storage of a version no longer used (``RecycledArray``): the bytes are
    /// read into it — already resident, not zeroed again — when nothing else holds it and it has
    /// room; `spare` is left empty either way (a spare that cannot be used is dropped before a
    /// new buffer is made, so memory held elsewhere is not doubled by this read).
    ///
    /// - Throws: ``FileReadError/unstable(path:attempts:)`` when the file kept changing during
    ///   every attempt (a new event will follow), ``FileReadError/notARegularFile(path:)``, or
    ///   ``FileReadError/systemCall(path:_:)`` for any other failure (permissions, I/O).
    public static func read(atPath path: String, maximumAttempts: Int = 5, reusing spare: inout [UInt8]) throws(FileReadError) -> FileSnapshot {
        var follower = NoFileReadFollower()
        return try read(atPath: path, maximumAttempts: maximumAttempts, reusing: &spare, following: &follower)
    }

    /// ``read(atPath:maximumAttempts:reusing:)``, reading the file into the buffer in pieces of
    /// ``followedPieceSize`` bytes and showing `follower` each piece right after it is read
    /// (``FileReadFollower``). A file that grew since its `fstat` is read on in 64 KiB pieces
    /// into a larger buffer, unseen by the follower.
    public static func read(
        atPath path: String, maximumAttempts: Int = 5, reusing spare: inout [UInt8], following follower: inout some FileReadFollower
    ) throws(FileReadError) -> FileSnapshot {
        try retrying(atPath: path, maximumAttempts: maximumAttempts) { () throws(FileReadError) in
            try readOnce(atPath: path, reusing: &spare, following: &follower)
        }
    }

    /// Runs `attempt` until it returns a result, up to `maximumAttempts` times with short growing
    /// pauses (1, 2, 4… ms); `nil` means the file moved during the attempt.
    ///
    /// - Throws: ``FileReadError/unstable(path:attempts:)`` when every attempt returned `nil`,
    ///   or what `attempt` throws.
    static func retrying<Result>(
        atPath path: String, maximumAttempts: Int, _ attempt: () throws(FileReadError) -> Result?
    ) throws(FileReadError) -> Result {
        for number in 1...max(1, maximumAttempts) {
            if let result = try attempt() {
                return result
            }
            if number < maximumAttempts {
                usleep(1_000 << min(number - 1, 6))
            }
        }
        throw .unstable(path: path, attempts: max(1, maximumAttempts))
    }

    /// ``read(atPath:maximumAttempts:reusing:)`` into a new buffer.
    public static func read(atPath path: String, maximumAttempts: Int = 5) throws(FileReadError) -> FileSnapshot {
        var spare: [UInt8] = []
        return try read(atPath: path, maximumAttempts: maximumAttempts, reusing: &spare)
    }

    /// One attempt; `nil` when the file moved during the read.
    private static func readOnce(
        atPath path: String, reusing spare: inout [UInt8], following follower: inout some FileReadFollower
    ) throws(FileReadError) -> FileSnapshot? {
        let outcome = try checkedAttempt(atPath: path) { (descriptor, size) throws(FileReadError) -> (content: [UInt8], count: Int)? in
            follower.begin(size: size)
            let bytes = try readAll(descriptor, expectedSize: size, path: path, reusing: &spare, following: &follower)
            return (bytes, bytes.count)
        }
        switch outcome {
        case .missing:
            return .missing
        case .moved(let bytes):
            // Read again into the same buffer.
            if let bytes { spare = bytes }
            return nil
        case .read(let bytes, let identity):
            return .present(bytes: FileBytes(bytes), identity: identity)
        }
    }

    /// What one ``checkedAttempt(atPath:_:)`` found.
    enum CheckedAttempt<Content> {
        /// Nothing is at the path (or a directory on the way is gone).
        case missing
        /// The file changed during the read (or the read found another size than `fstat`):
        /// what was read, if the read got that far, is not a version of the file.
        case moved(Content?)
        /// What was read is the file's content while it had `identity`.
        case read(Content, FileIdentity)
    }

    /// Opens the file at `path` and has `read` read it — given the descriptor and the size
    /// `fstat` reported — then checks the file's identity through the descriptor before and
    /// after, and through the path after: only a read during which none of them moved, of as
    /// many bytes as the file has, is the content of the file.
    ///
    /// `read` returns what it read and how many bytes of the file that is, or `nil` when it saw
    /// the file move (e.g. end before the size `fstat` reported).
    static func checkedAttempt<Content>(
        atPath path: String, _ read: (_ descriptor: Int32, _ size: Int) throws(FileReadError) -> (content: Content, count: Int)?
    ) throws(FileReadError) -> CheckedAttempt<Content> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else {
            let error = SystemCallError.lastError(of: "open")
            if error.code == ENOENT || error.code == ENOTDIR {
                return .missing
            }
            throw .systemCall(path: path, error)
        }
        defer { close(descriptor) }
        let before = try status(of: descriptor, path: path)
        guard before.st_mode & S_IFMT == S_IFREG else {
            throw .notARegularFile(path: path)
        }
        guard let (content, count) = try read(descriptor, Int(before.st_size)) else {
            return .moved(nil)
        }
        let after = try status(of: descriptor, path: path)
        let identity = FileIdentity(after)
        var atPath = stat()
        // The path must still name the file we read: a rename over it during the read means a
        // newer version is there.
        guard stat(path, &atPath) == 0,
              FileIdentity(atPath) == identity,
              FileIdentity(before) == identity,
              Int64(count) == identity.size
        else {
            return .moved(content)
        }
        return .read(content, identity)
    }

    private static func status(of descriptor: Int32, path: String) throws(FileReadError) -> stat {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .systemCall(path: path, .lastError(of: "fstat"))
        }
        return status
    }

    /// Reads to end of file: into one buffer of `expectedSize + 1` bytes (the extra byte notices
    /// growth without another `read` in the common case) — `spare` when it can be written in
    /// place (see ``read(atPath:maximumAttempts:reusing:)``) and is not much larger than the file
    /// (``largestSpare(for:)``), else a new uninitialised one — then, only if the file grew, in
    /// 64 KiB chunks.
    private static func readAll(
        _ descriptor: Int32, expectedSize: Int, path: String, reusing spare: inout [UInt8],
        following follower: inout some FileReadFollower
    ) throws(FileReadError) -> [UInt8] {
        var bytes: [UInt8] = []
        swap(&bytes, &spare)
        var outcome: Result<Bool, SystemCallError>
        if RecycledArray.isUniquelyReferenced(&bytes), bytes.capacity >= expectedSize + 1, bytes.capacity <= largestSpare(for: expectedSize + 1) {
            // A retired version's bytes are overwritten, not zeroed; only what the file grew by
            // since is.
            if bytes.count < expectedSize + 1 {
                bytes.append(contentsOf: repeatElement(0, count: expectedSize + 1 - bytes.count))
            }
            let count: Int
            (count, outcome) = bytes.withUnsafeMutableBytes { bytes in
                fill(UnsafeMutableRawBufferPointer(rebasing: bytes[..<(expectedSize + 1)]), from: descriptor, following: &follower)
            }
            bytes.removeLast(bytes.count - count)
        } else {
            bytes = []
            outcome = .success(false)
            bytes = [UInt8](unsafeUninitializedCapacity: RecycledArray.recyclableCapacity(for: expectedSize + 1)) { buffer, count in
                // Huge pages: a 100 MB read faults 50 times instead of 25,000 (issue 19: the
                // faults of the fresh buffer were a fifth of the daemon's time on a one-row edit).
                if let base = buffer.baseAddress { HugePages.advise(base, byteCount: expectedSize + 1) }
                (count, outcome) = fill(
                    UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<(expectedSize + 1)])), from: descriptor,
                    following: &follower)
            }
        }
        var chunk: [UInt8] = []
        while true {
            switch outcome {
            case .failure(let error):
                throw .systemCall(path: path, error)
            case .success(true):
                return bytes
            case .success(false):
                if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: 64 * 1024) }
                let count: Int
                var unfollowed = NoFileReadFollower()
                (count, outcome) = chunk.withUnsafeMutableBytes { fill($0, from: descriptor, following: &unfollowed) }
                bytes += chunk[..<count]
            }
        }
    }

    /// The largest spare a read of `count` bytes is written into: a quarter more, and 4 MiB.
    /// A larger one (the file shrank a lot) is dropped rather than reused: the version read into
    /// it would keep all of it alive for as long as it is held, and the tracker does not share a
    /// version's storage with the next read when it holds more than that beyond its size.
    static func largestSpare(for count: Int) -> Int {
        count + count / 4 + (4 << 20)
    }

    /// The bytes read at once when a ``FileReadFollower`` follows the read: 256 KiB, small
    /// enough that a piece is still in the CPU's L2 cache when the follower goes over it, large
    /// enough that the extra `read(2)` calls cost little (about 350 for an 88 MB file).
    public static let followedPieceSize = 256 << 10

    /// Reads until `buffer` is full or the file ends — in pieces of ``followedPieceSize`` shown
    /// to `follower` as they arrive, unless it is a ``NoFileReadFollower`` — and returns the bytes
    /// read and whether the end was reached.
    private static func fill(
        _ buffer: UnsafeMutableRawBufferPointer, from descriptor: Int32, following follower: inout some FileReadFollower
    ) -> (Int, Result<Bool, SystemCallError>) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else {
            preconditionFailure("reading into an empty buffer would never make progress")
        }
        let pieceSize = follower is NoFileReadFollower ? buffer.count : followedPieceSize
        var filled = 0
        while filled < buffer.count {
            let count = Glibc.read(descriptor, base + filled, min(buffer.count - filled, pieceSize))
            if count > 0 {
                filled += count
                follower.follow(UnsafeRawBufferPointer(start: base, count: filled))
            } else if count == 0 {
                return (filled, .success(true))
            } else if errno != EINTR {
                return (filled, .failure(.lastError(of: "read")))
            }
        }
        return (filled, .success(false))
    }
}
