import DurableFiles
import ListSyncProtocol

/// The changesets of one watch's history, as kept in `<state>/<watch>/log`: what refills the
/// history ring after a restart, so clients resume with exactly the changesets they missed.
///
/// On disk: the magic `LSYNCLG1`, a framed header (the epoch, and the `seq` of the version the
/// first changeset applies to), then one framed record per changeset (its `seq`, then the
/// `changeset` line exactly as it was sent), then zeros up to the file's end (a
/// ``ZeroFilledAppendRegion``). Records are only ever appended (written over the zeros and
/// `fdatasync`ed), or the whole log is replaced atomically (with its zeros): when a new epoch
/// starts, or to drop the oldest records.
/// A changeset is appended once it was published (its checkpoint carries it until then), before
/// the slot holding the version before it is overwritten.
struct ChangesetLog: SequencedRecordFile {
    static let magic = Array("LSYNCLG1".utf8)

    /// The history the log belongs to.
    let epoch: Epoch
    /// The `seq` of the version the first record's changeset applies to.
    let baseSeq: UInt64
    var records: [(seq: UInt64, end: Int)]
    let headerEnd: Int
    var fileSize: Int

    /// The record of the changeset `line` that publishes `seq`.
    ///
    /// The line is a piece of the record, shared, not copied: a change of every row of a large list
    /// makes a line of tens of MiB (issue 19), held as a mapping (``ChangesetLineSpool``).
    static func record(seq: UInt64, line: FileBytes) -> FileBytes {
        var head = StateWriter(capacity: 8)
        head.integer(seq)
        return ChecksummedRecord.frame(FileBytes(head.bytes) + line)
    }

    /// The bytes of the record of `seq`, frame included; `nil` when the log does not hold it.
    ///
    /// - Complexity: O(1).
    private func recordRange(of seq: UInt64) -> Range<Int>? {
        guard seq > self.baseSeq, seq <= self.lastSeq else { return nil }
        let index = Int(seq - self.baseSeq - 1)
        let start = index == 0 ? self.headerEnd : self.records[index - 1].end
        return start..<self.records[index].end
    }

    /// Where the `changeset` line of `seq` lies in the file (after the record's frame header and
    /// its `seq`); `nil` when the log does not hold it.
    func lineRange(publishing seq: UInt64) -> Range<Int>? {
        self.recordRange(of: seq).map { ($0.lowerBound + Self.lineOffset)..<$0.upperBound }
    }

    /// The bytes before a record's line: its frame's length and checksum, and its `seq`.
    private static let lineOffset = ChecksummedRecord.headerSize + 8

    /// The bytes the records take (the log's size without its header).
    var recordBytes: Int { self.size - self.headerEnd }

    /// How many of the newest records, at most `count`, take at most `bytes` together.
    ///
    /// - Complexity: O(*k*) in the records kept.
    func newestCount(atMost count: Int, fittingIn bytes: Int) -> Int {
        var kept = 0
        while kept < min(count, self.records.count) {
            let index = self.records.count - 1 - kept
            let start = index == 0 ? self.headerEnd : self.records[index - 1].end
            guard self.size - start <= bytes else { break }
            kept += 1
        }
        return kept
    }

    /// Forgets the records after `seq`; returns the file's new length (the file is to be cut there).
    mutating func truncate(after seq: UInt64) -> Int {
        self.records.removeAll { $0.seq > seq }
        self.fileSize = self.size
        return self.size
    }

    /// Where the newest `count` records start in the file.
    func start(ofNewest count: Int) -> Int {
        let dropped = self.records.count - min(count, self.records.count)
        return dropped == 0 ? self.headerEnd : self.records[dropped - 1].end
    }

    /// The log with only the newest `count` records, and its file's header: the file is that
    /// header followed by this log's file from ``start(ofNewest:)`` to its end, which the caller
    /// copies (file to file, never through memory).
    func keepingNewest(_ count: Int) -> (log: ChangesetLog, header: [UInt8]) {
        let (log, header, _) = self.dropping(first: self.records.count - min(count, self.records.count))
        return (log, header)
    }

    /// Reads the log of history `epoch` that must lead to version `lastSeq` (the newest
    /// checkpoint's) or to the one before (whose changeset the checkpoint carries); `nil` when
    /// the log is of another epoch.
    ///
    /// The records end where zeros follow them (or the file ends). A torn or garbled record
    /// once the log reaches `lastSeq - 1` is what a crash while
    /// appending the checkpoint's changeset leaves: it is dropped (``size`` says where the good
    /// part ends). Anything else that does not read, or a log that goes past `lastSeq` (a
    /// published version whose checkpoint was lost), is damage.
    ///
    /// - Returns: The log and the changeset lines, oldest first.
    static func decode(_ file: [UInt8], epoch: Epoch, leadingTo lastSeq: UInt64) throws(StateDamage.Reason) -> (log: ChangesetLog, lines: [ArraySlice<UInt8>])? {
        let (logEpoch, baseSeq, headerEnd) = try Self.header(of: file, kind: "changeset log")
        guard logEpoch == epoch else { return nil }
        guard baseSeq <= lastSeq else { throw .inconsistent("the log starts after the checkpoint's version \(lastSeq)") }
        var reader = StateReader(file, offset: headerEnd)
        var log = ChangesetLog(epoch: epoch, baseSeq: baseSeq, records: [], headerEnd: headerEnd, fileSize: file.count)
        var lines: [ArraySlice<UInt8>] = []
        while !ZeroFilledAppendRegion.endsRecords(in: file, at: reader.offset) {
            let start = reader.offset
            var payload: StateReader
            do throws(StateDamage.Reason) {
                // Only the `seq` is read here: the line stays a slice of the file, not copied.
                payload = StateReader(Array(try reader.record().prefix(8)))
            } catch {
                if log.lastSeq + 1 >= lastSeq { break }
                throw error
            }
            let seq = try payload.integer()
            guard seq == log.lastSeq + 1 else { throw .malformed("changeset \(seq) does not follow \(log.lastSeq)", at: start) }
            guard seq <= lastSeq else {
                throw .inconsistent("the log holds version \(seq), past the newest readable checkpoint's \(lastSeq)")
            }
            lines.append(file[(start + Self.lineOffset)..<reader.offset])
            log.records.append((seq, reader.offset))
        }
        guard log.lastSeq + 1 >= lastSeq else {
            throw .inconsistent("the log ends at version \(log.lastSeq), the checkpoint is at \(lastSeq)")
        }
        return (log, lines)
    }
}
