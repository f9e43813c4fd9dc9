import DurableFiles
import ListSyncProtocol
import NIOCore

/// The most recent changesets of one watch's history, as the encoded lines sent to subscribers:
/// the newest in memory, older ones on disk.
///
/// Memory holds a cache of the newest lines — at most ``capacity`` of them and at most
/// ``cacheBytes`` together, but always the newest one, however large — and drops the oldest
/// first. Older changesets are read back from the watch's ``ArchivedChangesets`` (its log on disk,
/// bounded by `history_length` and `history_max_mib`) when a client resumes from them. A client
/// whose cursor's successors are all kept gets exactly those lines (see
/// ``SubscriptionStart/plan(since:epoch:currentSeq:history:)``); a line in memory is the
/// tracker's own array, shared with the state store (which keeps the live version's changeset)
/// rather than copied (issue 19: a change of every row makes a line of several times the file),
/// and a subscriber sends it from there — in parts cut as they are sent, or, within the part
/// bound, as a copy of its own. A long line is a mapping of the file it was written to as it was
/// encoded (``WatchPublication/changesetLine``): resident only while a subscriber reads it.
struct ChangesetHistory {
    /// The most changesets kept.
    private(set) var capacity: Int
    /// The most bytes the lines in memory take, but for the newest.
    let cacheBytes: Int
    /// The history the changesets belong to, to tell the archive's log from another epoch's.
    let epoch: Epoch?
    /// Where older changesets are read back from; `nil` when there is no state on disk.
    let archive: (any ArchivedChangesets)?
    private var lines: CircularBuffer<FileBytes>
    /// The bytes of ``lines``.
    private(set) var bytes = 0
    /// The `seq` the newest entry published; `nil` until the first changeset.
    private(set) var newestSeq: UInt64?
    /// The version 1 digests of the versions published while a version 1 client was subscribed,
    /// by `seq` (the lines hold version 2 digests); at most ``capacity`` of them, the newest.
    private var v1Digests: [UInt64: ListDigest] = [:]

    /// An empty history of `epoch` for up to `capacity` changesets (at least 1), of which memory
    /// holds at most `cacheBytes`, the others read from `archive`.
    init(capacity: Int, cacheBytes: Int = .max, epoch: Epoch? = nil, archive: (any ArchivedChangesets)? = nil) {
        self.capacity = max(1, capacity)
        self.cacheBytes = cacheBytes
        self.epoch = epoch
        self.archive = archive
        self.lines = CircularBuffer(initialCapacity: min(self.capacity, 64))
    }

    /// The same bounds and archive, empty, for history `epoch`.
    func emptied(epoch: Epoch) -> ChangesetHistory {
        ChangesetHistory(capacity: self.capacity, cacheBytes: self.cacheBytes, epoch: epoch, archive: self.archive)
    }

    /// How many changesets memory holds.
    var count: Int { self.lines.count }

    /// The `seq` the oldest changeset in memory published.
    private var oldestInMemory: UInt64? {
        self.newestSeq.map { $0 - UInt64(self.lines.count) + 1 }
    }

    /// The `seq` the oldest kept changeset published, in memory or on disk; `nil` when none is
    /// kept. The archive counts only when it leads without a gap to what memory holds.
    ///
    /// - Complexity: O(1).
    var oldestSeq: UInt64? {
        guard let newestSeq = self.newestSeq, let inMemory = self.oldestInMemory, !self.lines.isEmpty else { return nil }
        guard let epoch = self.epoch, let onDisk = self.archive?.seqs(of: epoch), onDisk.upperBound + 1 >= inMemory,
            onDisk.lowerBound < inMemory
        else { return inMemory }
        // ``capacity`` bounds memory and disk together (memory alone never holds more).
        let countBound = newestSeq >= UInt64(self.capacity) ? newestSeq - UInt64(self.capacity) + 1 : 1
        return max(onDisk.lowerBound, countBound)
    }

    /// Adds the changeset that published `seq`, which must follow ``newestSeq`` when there is one,
    /// and drops the oldest lines from memory past the bounds.
    ///
    /// - Complexity: O(1) amortised.
    mutating func append(_ line: FileBytes, seq: UInt64, v1Digest: ListDigest? = nil) {
        if let newestSeq = self.newestSeq {
            precondition(seq == newestSeq + 1, "changeset \(seq) does not follow \(newestSeq)")
        }
        #if DEBUG
        // Subscribers cut parts from the line in place (``ChangesetParts/Cutter``).
        precondition(line.isContiguous, "a changeset line in \(line.pieces.count) pieces")
        #endif
        if let v1Digest {
            self.v1Digests[seq] = v1Digest
        }
        self.lines.append(line)
        self.bytes += line.count
        self.newestSeq = seq
        self.trim()
    }

    /// Where the changeset that published `seq` is kept.
    enum Kept {
        case inMemory(FileBytes)
        /// On disk: read it with ``ArchivedChangesets/line(publishing:of:)``, outside any lock.
        case onDisk(any ArchivedChangesets, epoch: Epoch)
    }

    /// Where the changeset that published `seq` is kept, if it is.
    ///
    /// - Complexity: O(1).
    func kept(publishing seq: UInt64) -> Kept? {
        guard let oldestSeq = self.oldestSeq, let newestSeq = self.newestSeq, (oldestSeq...newestSeq).contains(seq) else {
            return nil
        }
        if let inMemory = self.oldestInMemory, seq >= inMemory {
            return .inMemory(self.lines[self.lines.index(self.lines.startIndex, offsetBy: Int(seq - inMemory))])
        }
        guard let archive = self.archive, let epoch = self.epoch else { return nil }
        return .onDisk(archive, epoch: epoch)
    }

    /// The line of the changeset that published `seq`, if it is still kept (read from disk if
    /// it is only there).
    func line(publishing seq: UInt64) -> FileBytes? {
        switch self.kept(publishing: seq) {
        case .inMemory(let line): return line
        case .onDisk(let archive, let epoch): return archive.line(publishing: seq, of: epoch).map { FileBytes($0) }
        case nil: return nil
        }
    }

    /// The version 1 digest of the version `seq`, if a version 1 client was subscribed when it
    /// was published (or it was noted since, ``noteV1Digest(_:seq:)``).
    ///
    /// - Complexity: O(1).
    func v1Digest(publishing seq: UInt64) -> ListDigest? {
        self.v1Digests[seq]
    }

    /// Whether a version 1 client can be given the changesets publishing `seqs`: each one in
    /// memory has its version 1 digest kept; one on disk only is taken as its line says (it
    /// carries `digest_v1` when it was published while a version 1 client followed the watch),
    /// checked as it is read back.
    ///
    /// - Complexity: O(`seqs.count`).
    func hasV1Digests(for seqs: Range<UInt64>) -> Bool {
        let inMemory = self.oldestInMemory ?? .max
        return seqs.allSatisfy { $0 < inMemory || self.v1Digests[$0] != nil }
    }

    /// Keeps the version 1 digest of version `seq`, computed for a version 1 client.
    mutating func noteV1Digest(_ digest: ListDigest, seq: UInt64) {
        guard let newestSeq = self.newestSeq, seq <= newestSeq, newestSeq - seq < UInt64(self.capacity) else { return }
        self.v1Digests[seq] = digest
    }

    /// Keeps at most `capacity` changesets from now on, dropping the oldest if there are more.
    mutating func resize(capacity: Int) {
        self.capacity = max(1, capacity)
        if let newestSeq = self.newestSeq {
            self.v1Digests = self.v1Digests.filter { newestSeq - $0.key < UInt64(self.capacity) }
        }
        self.trim()
    }

    /// Drops the oldest lines from memory while there are more than ``capacity`` or they take
    /// more than ``cacheBytes``; the newest stays.
    private mutating func trim() {
        while self.lines.count > self.capacity || (self.lines.count > 1 && self.bytes > self.cacheBytes) {
            self.bytes -= self.lines.removeFirst().count
        }
        if let newestSeq = self.newestSeq, newestSeq >= UInt64(self.capacity) {
            // One version leaves the kept range per append; a resize filters them all.
            self.v1Digests.removeValue(forKey: newestSeq - UInt64(self.capacity))
        }
        self._checkInvariants()
    }

    /// Checks that memory respects its bounds and knows its newest `seq` when it has entries.
    func _checkInvariants() {
        #if DEBUG
        precondition(self.lines.count <= self.capacity, "\(self.lines.count) changesets kept, capacity \(self.capacity)")
        precondition(self.lines.count <= 1 || self.bytes <= self.cacheBytes, "\(self.bytes) bytes cached, bound \(self.cacheBytes)")
        precondition(self.lines.isEmpty || self.newestSeq != nil, "entries without a newest seq")
        if let newestSeq = self.newestSeq {
            precondition(UInt64(self.lines.count) <= newestSeq, "more changesets than versions after 0")
        }
        #endif
    }
}
