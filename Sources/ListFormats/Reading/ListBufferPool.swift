import DurableFiles
import Synchronization

/// The storage of the list version an ``IncrementalListReader`` read before its last one — the
/// file's bytes and the records — for the next version to be written into, already resident.
///
/// A daemon reading a 1M-row file per version otherwise maps about 85 MB of fresh memory per
/// version, which the kernel zeroes on first touch (a third of its CPU on a one-row edit,
/// issue 19). The pool holds one version's arrays at most, and only references to them: they
/// are written into only once nothing else holds them (``RecycledArray/isUniquelyReferenced(_:)``,
/// checked by whoever takes them), so a version still read — by a snapshot in progress, a
/// subscriber, the tracker — never changes; its storage is then dropped from the pool instead
/// and freed by its last reader. ``release()`` gives the memory back (the daemon calls it once a
/// watch has been idle for longer than its saves' usual interval, bounded: the daemon's
/// `SpareMemoryRelease`), so that between bursts of saves nothing is kept.
///
///     let pool = ListBufferPool()
///     var spare = pool.takeBytes()
///     // FileWatching's read, into the spare bytes when it can:
///     guard case .present(let bytes, _) = try FileSnapshot.read(atPath: path, reusing: &spare) else { … }
///     let list = try reader.read(bytes: bytes, recycling: pool)   // records likewise
///     …
///     pool.release()                                               // idle: memory back
public final class ListBufferPool: Sendable {
    private struct Spare: Sendable {
        var bytes: [UInt8] = []
        var records: [ListRecord] = []
        /// The ``IncrementalListReader`` version whose records `records` are (0: none).
        var recordsVersion: UInt64 = 0

        /// The bytes of what the arrays hold — the retired version's file bytes and records —
        /// not of their reservation: a first read reserves its records array for an estimate of
        /// the records, up to twice as many, whose pages past the records are never written and
        /// hold no memory.
        var byteCount: Int {
            bytes.count + records.count * MemoryLayout<ListRecord>.stride
        }
    }

    private let spare = Mutex(Spare())
    /// Told the bytes of storage the pool holds after each change (``heldByteCount``), under the
    /// pool's lock, so that calls come in the order of the changes.
    private let onChange: (@Sendable (Int) -> Void)?

    /// A pool that tells `onChange` the bytes it holds after each change (a daemon's gauge).
    public init(onChange: (@Sendable (Int) -> Void)? = nil) {
        self.onChange = onChange
    }

    /// Takes the kept file bytes, leaving none in the pool (empty when there are none). Write
    /// into them only if ``RecycledArray/isUniquelyReferenced(_:)`` says so (as
    /// `FileSnapshot.read(atPath:maximumAttempts:reusing:)` does).
    public func takeBytes() -> [UInt8] {
        spare.withLock { spare in
            var bytes: [UInt8] = []
            swap(&bytes, &spare.bytes)
            onChange?(spare.byteCount)
            return bytes
        }
    }

    /// Takes the kept records array, leaving none in the pool, with the number of the reader's
    /// version they are (0: none), which says what they hold.
    func takeRecords() -> (records: [ListRecord], version: UInt64) {
        spare.withLock { spare in
            var records: [ListRecord] = []
            swap(&records, &spare.records)
            defer { spare.recordsVersion = 0 }
            onChange?(spare.byteCount)
            return (records, spare.recordsVersion)
        }
    }

    /// Keeps `bytes` and `records`, the storage of a version its reader has moved on from, in
    /// place of what the pool held. They are written into later only if nothing else holds them
    /// by then.
    /// `version` is the number the reader gave the version whose records they are.
    func retire(bytes: [UInt8], records: [ListRecord], version: UInt64) {
        let dropped = spare.withLock { spare in
            var dropped = Spare(bytes: bytes, records: records, recordsVersion: version)
            swap(&dropped, &spare)
            onChange?(spare.byteCount)
            return dropped
        }
        withExtendedLifetime(dropped) {}
    }

    /// Drops what the pool holds: memory nothing else holds goes back to the system.
    ///
    /// - Returns: The bytes of storage it held (``heldByteCount``).
    @discardableResult
    public func release() -> Int {
        let dropped = spare.withLock { spare in
            var dropped = Spare()
            swap(&dropped, &spare)
            onChange?(0)
            return dropped
        }
        // Freed here, outside the lock.
        return withExtendedLifetime(dropped) { dropped.byteCount }
    }

    /// Whether the pool holds nothing.
    public var isEmpty: Bool {
        spare.withLock { $0.bytes.capacity == 0 && $0.records.capacity == 0 }
    }

    /// The bytes of storage the pool holds: the kept file bytes and records (one version's at
    /// most), counted as the arrays hold them, not as far as they are reserved.
    public var heldByteCount: Int {
        spare.withLock { $0.byteCount }
    }
}
