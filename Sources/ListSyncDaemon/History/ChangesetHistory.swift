import NIOCore

/// The ring of one watch's most recent changesets, as the encoded lines sent to subscribers.
///
/// Entry *k* is the changeset that published version ``newestSeq`` − ``count`` + 1 + *k*; the
/// ring holds at most ``capacity`` of them and drops the oldest first. A client that resumes from
/// a cursor whose successors are all still here gets exactly those lines (see
/// ``SubscriptionStart/plan(since:epoch:currentSeq:history:)``); the same `ByteBuffer` is written
/// to every subscriber, so the ring costs one copy of each line, however many subscribers there are.
struct ChangesetHistory {
    /// The most changesets kept.
    private(set) var capacity: Int
    private var lines: CircularBuffer<ByteBuffer>
    /// The `seq` the newest entry published; `nil` until the first changeset.
    private(set) var newestSeq: UInt64?

    /// An empty ring for up to `capacity` changesets (at least 1).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        self.lines = CircularBuffer(initialCapacity: min(self.capacity, 64))
    }

    /// How many changesets are kept.
    var count: Int { self.lines.count }

    /// The `seq` the oldest kept changeset published; `nil` when the ring is empty.
    var oldestSeq: UInt64? {
        self.newestSeq.map { $0 - UInt64(self.lines.count) + 1 }
    }

    /// Adds the changeset that published `seq`, which must follow ``newestSeq`` when there is one.
    ///
    /// - Complexity: O(1) amortised.
    mutating func append(_ line: ByteBuffer, seq: UInt64) {
        if let newestSeq = self.newestSeq {
            precondition(seq == newestSeq + 1, "changeset \(seq) does not follow \(newestSeq)")
        }
        if self.lines.count == self.capacity {
            self.lines.removeFirst()
        }
        self.lines.append(line)
        self.newestSeq = seq
        self._checkInvariants()
    }

    /// The line of the changeset that published `seq`, if it is still kept.
    ///
    /// - Complexity: O(1).
    func line(publishing seq: UInt64) -> ByteBuffer? {
        guard let oldestSeq = self.oldestSeq, let newestSeq = self.newestSeq, (oldestSeq...newestSeq).contains(seq) else {
            return nil
        }
        return self.lines[self.lines.index(self.lines.startIndex, offsetBy: Int(seq - oldestSeq))]
    }

    /// Keeps at most `capacity` changesets from now on, dropping the oldest if there are more.
    mutating func resize(capacity: Int) {
        self.capacity = max(1, capacity)
        while self.lines.count > self.capacity {
            self.lines.removeFirst()
        }
        self._checkInvariants()
    }

    /// Checks that the ring respects its capacity and knows its newest `seq` when it has entries.
    func _checkInvariants() {
        #if DEBUG
        precondition(self.lines.count <= self.capacity, "\(self.lines.count) changesets kept, capacity \(self.capacity)")
        precondition(self.lines.isEmpty || self.newestSeq != nil, "entries without a newest seq")
        if let newestSeq = self.newestSeq {
            precondition(UInt64(self.lines.count) <= newestSeq, "more changesets than versions after 0")
        }
        #endif
    }
}
