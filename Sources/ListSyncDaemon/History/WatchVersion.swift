import DurableFiles
import ListDiff
import ListFormats
import ListSyncProtocol
import NIOPosix
import Synchronization

/// One valid version of a watched file's list, as subscribers see it: immutable and shared by
/// the tracker (the next diff's source), the feed (snapshots) and every snapshot in progress.
final class WatchVersion: Sendable {
    /// The history the version belongs to: the watch's first, or the one a reload started when it
    /// changed how records are identified (key, section_by, format).
    let epoch: Epoch
    /// The version's number: 0 for the first one loaded, then one more per version, across epochs.
    let seq: UInt64
    /// The parsed file.
    let list: ParsedList
    /// The version 2 digest's tree, from which the next version's is derived.
    let tree: ListDigestTree
    /// The number of records.
    let rowCount: Int
    /// The bytes this version's file is known to share at both ends with the version it
    /// follows, without comparing them (`nil`: unknown).
    let unchangedBytes: UnchangedByteEnds?
    /// The version 1 digest, once a version 1 client needed it.
    private let v1DigestCache = Mutex<ListDigest?>(nil)
    /// Held while the version 1 digest is computed, so that it is computed once: whoever asks
    /// meanwhile waits here (off the event loops) and reads it. ``computedV1Digest`` never waits.
    private let v1DigestComputation = Mutex<Void>(())

    /// Version `seq` of `list` in history `epoch`, its digest computed from scratch. O(*n*).
    init(epoch: Epoch, seq: UInt64, list: ParsedList) {
        self.epoch = epoch
        self.seq = seq
        self.list = list
        if let records = list.linearRecords {
            self.tree = ListDigestTree(schema: list.schema, digestSections: [LinearDigestSection(records)])
            self.rowCount = records.count
        } else {
            let sections = list.sections
            self.tree = ListDigestTree(schema: list.schema, sections: sections)
            self.rowCount = sections.reduce(0) { $0 + $1.elements.count }
        }
        self.unchangedBytes = nil
    }

    /// Version `seq` of `list` in history `epoch`, which follows `previous`: its digest is
    /// `previous`'s tree updated (see ``ListDigestTree``), O(changed records) hashing; the
    /// records `known` equal at both ends are not compared. `unchangedBytes`: what the file is
    /// known to share with `previous`'s at both ends.
    init(
        epoch: Epoch, seq: UInt64, list: ParsedList, following previous: WatchVersion, known: KnownEqualEnds = .nothing,
        unchangedBytes: UnchangedByteEnds? = nil
    ) {
        self.epoch = epoch
        self.seq = seq
        self.list = list
        if let records = list.linearRecords, let previousRecords = previous.list.linearRecords {
            // Two linear lists: from their records as they are held, runs that share storage
            // with the previous version's (see ``ListFormats/ListRecords``), not copied.
            self.tree = previous.tree.updated(
                schema: list.schema, fromDigestSections: [LinearDigestSection(previousRecords)], to: [LinearDigestSection(records)], known: known)
            self.rowCount = records.count
        } else {
            let sections = list.sections
            self.tree = previous.tree.updated(schema: list.schema, from: previous.list.sections, to: sections, known: known)
            self.rowCount = sections.reduce(0) { $0 + $1.elements.count }
        }
        self.unchangedBytes = unchangedBytes.flatMap { $0.previous == previous.cursor ? $0 : nil }
    }

    /// `version` over `bytes` and `records` (`nil`: its own), the same as its list's held
    /// otherwise (issue 19: mapped from the state files that saved them, and from the watch's
    /// records file, ``ParsedList/holding(_:records:)``): same cursor, records, digests. O(1).
    init(_ version: WatchVersion, holding bytes: FileBytes?, records: ListRecords? = nil) {
        self.epoch = version.epoch
        self.seq = version.seq
        self.list = version.list.holding(bytes, records: records)
        self.tree = version.tree
        self.rowCount = version.rowCount
        self.unchangedBytes = version.unchangedBytes
        self.v1DigestCache.withLock { $0 = version.computedV1Digest }
    }

    /// The version 2 digest of the whole list: what the changeset line of the version carries as
    /// stored and sent to version 2 clients, and what its checkpoint holds.
    var digest: ListDigest { self.tree.digest }

    /// The version 1 digest, computed the first time it is needed (O(*n*)), then kept; computed
    /// once even when several threads ask at the same time.
    ///
    /// Never on an event loop: at a million rows it takes tens of milliseconds, which would hold
    /// up every connection of the loop. The tracker and the state store ask from their tasks;
    /// a connection asks on the server's thread pool (``WatchFeed/computeV1Digest(of:)``) and
    /// reads it with ``computedV1Digest``.
    var v1Digest: ListDigest {
        assert(MultiThreadedEventLoopGroup.currentEventLoop == nil, "the version 1 digest is computed on an event loop")
        if let digest = self.computedV1Digest { return digest }
        return self.v1DigestComputation.withLock { _ in
            if let digest = self.computedV1Digest { return digest }
            let digest = ListDigest(of: self.list, version: .v1)
            self.v1DigestCache.withLock { $0 = digest }
            return digest
        }
    }

    /// The version 1 digest if it was computed, without computing it. O(1), never waits.
    var computedV1Digest: ListDigest? {
        self.v1DigestCache.withLock { $0 }
    }

    /// The digest in `version`; `nil` for a version 1 digest not computed yet (see ``v1Digest``).
    func digest(_ version: DigestVersion) -> ListDigest? {
        version == .v1 ? self.computedV1Digest : self.digest
    }

    /// The cursor that names the version.
    var cursor: Cursor {
        Cursor(epoch: self.epoch, seq: self.seq)
    }
}
