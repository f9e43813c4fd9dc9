import DurableFiles
import ListSyncProtocol

/// What the daemon's append-only state files share (``ChangesetLog``, ``DeltaJournal``): a
/// magic, a framed header holding the epoch and the `seq` the first record follows, then one
/// framed record per version, in `seq` order, then zeros up to the file's end (a
/// ``ZeroFilledAppendRegion``: appends overwrite them, so that a version's flush changes neither
/// the file's size nor its blocks); and in memory where each record's frame ends, so the file
/// can be appended to, cut, or rebased without being read again.
protocol SequencedRecordFile: Sendable {
    /// The file's first bytes.
    static var magic: [UInt8] { get }
    /// The history the file belongs to.
    var epoch: Epoch { get }
    /// The `seq` of the version the first record follows.
    var baseSeq: UInt64 { get }
    /// Each record's `seq` and where its frame ends in the file, in order.
    var records: [(seq: UInt64, end: Int)] { get set }
    /// Where the header ends and the first record starts.
    var headerEnd: Int { get }
    /// The size of the file on disk: its records, then zeros up to here (at least ``size``).
    var fileSize: Int { get set }

    init(epoch: Epoch, baseSeq: UInt64, records: [(seq: UInt64, end: Int)], headerEnd: Int, fileSize: Int)
}

extension SequencedRecordFile {
    /// The `seq` of the newest version the file leads to.
    var lastSeq: UInt64 { self.records.last?.seq ?? self.baseSeq }
    /// Where the records end (the file's logical end; zeros follow up to ``fileSize``).
    var size: Int { self.records.last?.end ?? self.headerEnd }
    /// The records and the zeros after them, where the next record is written.
    var region: ZeroFilledAppendRegion { ZeroFilledAppendRegion(end: self.size, size: max(self.size, self.fileSize)) }

    /// An empty file of history `epoch` starting at version `baseSeq`, and its bytes (before
    /// their zeros: ``write(to:header:copying:then:limit:kind:crashPoints:)`` adds them).
    static func empty(epoch: Epoch, baseSeq: UInt64) -> (value: Self, file: [UInt8]) {
        var header = StateWriter(capacity: 16)
        header.integer(epoch.rawValue)
        header.integer(baseSeq)
        let file = Self.magic + StateWriter.frame(header.bytes)
        return (Self(epoch: epoch, baseSeq: baseSeq, records: [], headerEnd: file.count, fileSize: file.count), file)
    }

    /// Notes that a record of `seq`, `count` bytes long, was appended.
    mutating func appended(seq: UInt64, count: Int) {
        precondition(seq == self.lastSeq + 1, "version \(seq) does not follow \(self.lastSeq)")
        self.records.append((seq, self.size + count))
        self.fileSize = max(self.fileSize, self.size)
    }

    /// The file without its first `dropped` records, and its header: the file is that header
    /// followed by this file's bytes from `start` to its end, which the caller copies file to
    /// file (never through memory).
    func dropping(first dropped: Int) -> (value: Self, header: [UInt8], start: Int) {
        let start = dropped == 0 ? self.headerEnd : self.records[dropped - 1].end
        var (kept, header) = Self.empty(epoch: self.epoch, baseSeq: dropped == 0 ? self.baseSeq : self.records[dropped - 1].seq)
        for record in self.records[dropped...] {
            kept.records.append((record.seq, record.end - start + kept.headerEnd))
        }
        kept.fileSize = kept.size
        return (kept, header, start)
    }

    /// Reads the magic and the header of `file`, named `kind` in errors: the epoch, the base
    /// `seq`, and where the records start.
    static func header(of file: [UInt8], kind: String) throws(StateDamage.Reason) -> (epoch: Epoch, baseSeq: UInt64, headerEnd: Int) {
        guard file.starts(with: Self.magic) else {
            throw .malformed("not a \(kind) (no \(String(decoding: Self.magic, as: UTF8.self)))", at: 0)
        }
        var reader = StateReader(file, offset: Self.magic.count)
        var header = StateReader(Array(try reader.record()))
        let epoch = Epoch(rawValue: try header.integer())
        let baseSeq = try header.integer()
        guard header.isAtEnd else { throw .malformed("bytes after the \(kind)'s header", at: Self.magic.count) }
        return (epoch, baseSeq, reader.offset)
    }
}
