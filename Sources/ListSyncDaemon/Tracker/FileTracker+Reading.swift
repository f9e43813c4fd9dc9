import FileWatching
import ListFormats
import NIOPosix

extension FileTracker {
    /// One read of the watched file: what it gave, and the completeness marks around it when the
    /// watcher's announcement asked for a check.
    struct FileRead: Sendable {
        /// The file's content (only its complete lines, when asked), or why it could not be read.
        var content: Result<FileSnapshot, FileReadError>
        /// The marks put in right before and right after the read, to be confirmed.
        var checkedRead: CheckedRead?
        /// The reader's chunk hashes, taken as the bytes came in (nil: none asked for).
        var hashes: IncrementalListReader.ReadHashes?
        /// What the read shares with the last good version (nil: it was read whole).
        var shared: SharedRead?
        /// When the read began and ended, on its thread (``VersionTimeline``).
        var started: ContinuousClock.Instant
        var ended: ContinuousClock.Instant
    }

    /// Reads the file on `pool`. With `check`, the marks go in right before and right after the
    /// read, on its thread; with `completeLinesOnly` (a writer holds the file), a line not yet
    /// finished is no record, so only complete lines are kept (not for JSON, which has no lines).
    /// With `hashes` (``StateMachine/hashesWhileReading(options:)``), the reader's chunk hashes
    /// are taken as the bytes come in, while they are in the CPU's cache (``ChunkHashFollower``).
    /// With `unchanged` — the file's identity at the last read used and the last good version —
    /// a file that still has that identity and holds that version's bytes gives those bytes,
    /// compared piece by piece, without a buffer of its size
    /// (``FileSnapshot/unchanged(atPath:identity:bytes:)``). With `sharing`
    /// (``StateMachine/sharingSource(options:)``), the bytes at either end that equal the last
    /// good version's are slices of its storage and only the changed middle is new memory
    /// (``FileSnapshot/read(atPath:maximumAttempts:sharingWith:boundaries:)``; not for a file a
    /// writer holds, whose last line may be cut). With `copying` (none of the above asked for:
    /// ``WatchStateStore/openSlotCopy()``), it is copied into that checkpoint slot inside the
    /// kernel and its bytes are a mapping of the copy
    /// (``FileSnapshot/copy(atPath:into:at:maximumAttempts:)``, issue 19). Otherwise it is read whole.
    func read(
        _ watch: WatchConfiguration, check: CompletenessCheck?, completeLinesOnly: Bool,
        hashes: IncrementalListReader.ReadHashes? = nil, unchanged: (identity: FileIdentity, version: WatchVersion)? = nil,
        sharing: SharingSource? = nil, copying slot: WatchStateStore.SlotCopy? = nil, pool: NIOThreadPool
    ) async throws -> FileRead {
        try await pool.runIfActive {
            let started = ContinuousClock.now
            let checkedRead = check?.beginRead()
            if let slot {
                let content = Result { () throws(FileReadError) in
                    try FileSnapshot.copy(atPath: watch.path, into: slot.descriptor, at: Checkpoint.bytesOffset)
                }
                if case .success(let snapshot) = content {
                    checkedRead?.end(with: snapshot)
                }
                return FileRead(content: content, checkedRead: checkedRead, hashes: nil, shared: nil, started: started, ended: .now)
            }
            if !completeLinesOnly, let unchanged,
                let snapshot = FileSnapshot.unchanged(atPath: watch.path, identity: unchanged.identity, bytes: unchanged.version.list.fileBytes)
            {
                checkedRead?.end(with: snapshot)
                return FileRead(content: .success(snapshot), checkedRead: checkedRead, hashes: nil, shared: nil, started: started, ended: .now)
            }
            if !completeLinesOnly, let sharing {
                let content = Result { () throws(FileReadError) in
                    try FileSnapshot.read(atPath: watch.path, sharingWith: sharing.bytes, boundaries: sharing.boundaries)
                }
                if case .success((let snapshot, _)) = content {
                    checkedRead?.end(with: snapshot)
                }
                return FileRead(
                    content: content.map(\.0), checkedRead: checkedRead, hashes: nil,
                    shared: (try? content.get()).map { SharedRead(stretches: $0.1, previous: sharing.version) }, started: started, ended: .now)
            }
            // Into the storage of the version before the live one, when nothing holds it any more.
            var spare = self.buffers.takeBytes()
            var followed = hashes
            var content = Result { () throws(FileReadError) in
                guard let hashes else { return try FileSnapshot.read(atPath: watch.path, reusing: &spare) }
                var follower = ChunkHashFollower(hashes: hashes)
                defer { followed = follower.hashes }
                return try FileSnapshot.read(atPath: watch.path, reusing: &spare, following: &follower)
            }
            if completeLinesOnly, watch.format != .json {
                content = content.map { $0.completeLines() }
            }
            if case .success(let snapshot) = content {
                checkedRead?.end(with: snapshot)
            }
            return FileRead(content: content, checkedRead: checkedRead, hashes: followed, shared: nil, started: started, ended: .now)
        }
    }

    /// Whether `read` may be used: the watcher confirms that nobody wrote the file during it, or
    /// no check was asked for. A read that failed has no content to be torn.
    func confirm(_ read: FileRead) async -> Bool {
        guard let checkedRead = read.checkedRead, case .success = read.content else { return true }
        return await checkedRead.confirm()
    }
}
