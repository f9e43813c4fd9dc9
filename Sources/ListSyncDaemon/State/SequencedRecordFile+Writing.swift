import DurableFiles

/// Writing a ``SequencedRecordFile``: a record appended into its zeros, or the whole file
/// replaced with new zeros; either way the value in memory is updated once the file is.
extension SequencedRecordFile {
    /// Appends `record`, of version `seq`, to the file at `path` (which this value describes):
    /// written over its zeros and `fdatasync`ed, the zeros extended now and then within `limit`
    /// bytes (the file's bound). The crash points `<kind>-written` and `<kind>-synced` are
    /// reached before and after the flush. When it fails the file is as it was, and so is this.
    /// With `deferringFlush` the record is written, not flushed: the caller flushes the returned
    /// file (and reaches `<kind>-synced`).
    @discardableResult
    mutating func append(
        _ record: [UInt8], seq: UInt64, to path: String, limit: Int, deferringFlush: Bool = false, kind: String, crashPoints: StateCrashPoints
    ) throws(StateFileError) -> UnflushedFile? {
        try self.append(FileBytes(record), seq: seq, to: path, limit: limit, deferringFlush: deferringFlush, kind: kind, crashPoints: crashPoints)
    }

    /// Appends a record held in pieces (a ``DeltaJournal`` record whose inserted bytes are the
    /// version's own), written piece by piece: as ``append(_:seq:to:limit:deferringFlush:kind:crashPoints:)``.
    @discardableResult
    mutating func append(
        _ record: FileBytes, seq: UInt64, to path: String, limit: Int, deferringFlush: Bool = false, kind: String, crashPoints: StateCrashPoints
    ) throws(StateFileError) -> UnflushedFile? {
        var region = self.region
        let unflushed = try StateFile.append(
            record, to: path, region: &region, limit: limit, deferringFlush: deferringFlush, kind: kind, crashPoints: crashPoints)
        self.appended(seq: seq, count: record.count)
        self.fileSize = region.size
        return unflushed
    }

    /// Replaces the file at `path` with this value's file, atomically (``StateFile/replace(_:with:copying:then:zeroFillingUpTo:kind:crashPoints:)``):
    /// `header`, the bytes `kept` of the file now at `path` (copied file to file), `trailing`
    /// records, then zeros within `limit` bytes.
    mutating func write(
        to path: String, header: [UInt8], copying kept: Range<Int> = 0..<0, then trailing: [FileBytes] = [], limit: Int, kind: String,
        crashPoints: StateCrashPoints
    ) throws(StateFileError) {
        let size = try StateFile.replace(path, with: [header], copying: kept, then: trailing, zeroFillingUpTo: limit, kind: kind, crashPoints: crashPoints)
        self.fileSize = max(self.size, size)
    }
}
