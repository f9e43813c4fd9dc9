#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file of ``ChecksummedRecord``s that are appended into zero bytes written ahead of them, the
/// way databases write their logs: each append overwrites part of space the file already holds
/// (allocated and written), then `fdatasync`s. Neither the file's size nor its blocks change, so
/// the flush writes only the record's data blocks, and ext4 (or XFS) need not commit its
/// journal — a commit that, after a large file was written and renamed elsewhere on the same
/// file system, waits for all of it to reach the disk (data=ordered, `auto_da_alloc`): tens of
/// milliseconds per record instead of a fraction of one.
///
/// The zeros are written, never `fallocate`d: an unwritten extent needs a metadata change when
/// it is first written. They are extended only now and then (at least ``leastGrowth``, or half
/// the file, within the caller's byte bound), by writing the record and the new zeros together.
///
/// The zeros start with an end mark, a frame length of 2⁶⁴ − 1 (eight `0xFF` bytes), written
/// again after each append: a reader of the builds before the zeros takes it for a record cut
/// short at the file's end — a torn last record — and so reads every record and cuts the file
/// there, rather than taking the zeros for damage.
///
/// Reading: the records end (the *logical end*) where a record cannot start — its frame's
/// length is the end mark or zero (``endsRecords(in:at:)``): no record of these files is empty
/// or 2⁶⁴ − 1 bytes long, and a zero frame would never check (the checksum of no bytes is not
/// zero). A bad record followed by nothing but padding (zeros, perhaps after an end mark) is a
/// torn last record (``isLastRecord(in:at:)``). Anything else after the logical end — a record a
/// crash cut short — must be cut off before the next append (``found(in:recordsEnd:)`` says so),
/// so that no leftover can ever follow a later, shorter record. A file without zeros (written
/// before them) is read the same way: its logical end is its end.
///
/// A failed append leaves the file as it was: the record's bytes are zeroed again and an
/// extension is cut back.
public struct ZeroFilledAppendRegion: Hashable, Sendable {
    /// The fewest zero bytes an extension (or a new file) adds, within the bound: space for
    /// hundreds of records of a one-row edit, so that the file's size changes once in hundreds
    /// of appends.
    public static let leastGrowth = 256 << 10

    /// Where the records end: the next append writes here.
    public private(set) var end: Int
    /// The file's size: zero bytes from ``end`` to here.
    public private(set) var size: Int

    /// The region of a file whose records end at `end` and whose size is `size` (zeros between).
    public init(end: Int, size: Int) {
        precondition(end >= 0 && size >= end, "ZeroFilledAppendRegion: size \(size) before the end \(end)")
        self.end = end
        self.size = size
    }

    /// The region of a new file whose records take `end` bytes: zeros after them up to the size
    /// an extension would give, within `limit` bytes.
    public init(newFileOf end: Int, limit: Int) {
        self.init(end: end, size: Self.grownSize(for: end, limit: limit))
    }

    /// The zero bytes after the records (the end mark among them).
    public var zeroBytes: Int { self.size - self.end }

    /// The end mark: the frame length that no record has, where the zeros start.
    public static let endMark = [UInt8](repeating: 0xFF, count: 8)

    /// The size of a file that must hold `end` bytes of records, extended: at least
    /// ``leastGrowth`` or half of `end` more, but not past `limit` (never less than `end`).
    private static func grownSize(for end: Int, limit: Int) -> Int {
        max(end, min(limit, end + max(self.leastGrowth, end / 2)))
    }

    // MARK: Reading

    /// The region of a file read whole (`file`) whose records were found to end at `end`, and
    /// whether what follows them is padding only (``isPadding(_:)``): when not (a torn record),
    /// the caller cuts the file at `end` before appending (the region then ends there).
    /// O(bytes after `end`).
    public static func found(in file: [UInt8], recordsEnd end: Int) -> (region: ZeroFilledAppendRegion, isClean: Bool) {
        let clean = self.isPadding(file[min(end, file.count)...])
        return (ZeroFilledAppendRegion(end: end, size: clean ? max(end, file.count) : end), clean)
    }

    /// Whether no record starts at `offset` of `bytes`: the bytes are read, or the next frame's
    /// length (as much of it as there is) is the end mark or zero — the logical end.
    public static func endsRecords(in bytes: [UInt8], at offset: Int) -> Bool {
        guard offset < bytes.count else { return true }
        let length = bytes[offset..<min(bytes.count, offset + Self.endMark.count)]
        return self.isZeroFilled(length) || length.elementsEqual(Self.endMark.prefix(length.count))
    }

    /// Whether the (bad) record at `offset` of `bytes` is the last one: the length in its frame
    /// reaches the end of the bytes, or only padding follows where it says it ends. A torn
    /// record — an append a crash cut short — is always the last.
    public static func isLastRecord(in bytes: [UInt8], at offset: Int) -> Bool {
        let reader = ChecksummedRecordReader(bytes, from: offset)
        guard !reader.nextRecordIsLast, let count = reader.declaredCount else { return true }
        return self.isPadding(bytes[(offset + ChecksummedRecord.headerSize + Int(count))...])
    }

    /// Whether `bytes` is what follows the records of a file: zeros, perhaps after the end
    /// mark (or as much of it as fits).
    public static func isPadding(_ bytes: ArraySlice<UInt8>) -> Bool {
        let mark = bytes.prefix(Self.endMark.count)
        let zerosStart = mark.elementsEqual(Self.endMark.prefix(mark.count)) ? mark.endIndex : bytes.startIndex
        return self.isZeroFilled(bytes[zerosStart...])
    }

    /// Whether every byte of `bytes` is zero. O(*n*), a word at a time.
    public static func isZeroFilled(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var index = 0
            while index + 8 <= buffer.count {
                guard buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self) == 0 else { return false }
                index += 8
            }
            return buffer[index...].allSatisfy { $0 == 0 }
        }
    }

    // MARK: Writing

    /// Appends `bytes` (whole records) at ``end`` of the file at `path` and `fdatasync`s it.
    /// When they fit in the zeros, the file's size and blocks stay as they are; when not, the
    /// zeros are extended with the same write (up to `limit`, the caller's bound on the file's
    /// size; past it only by what the records need). A region larger than `limit` (the bound
    /// shrank) is cut back to it.
    ///
    /// When the write or the flush fails, the file is left as it was (the bytes zeroed, the
    /// size restored) as far as the system lets, and the error is thrown.
    ///
    /// With `deferringFlush`, nothing is flushed: the records are written (in the page cache)
    /// and the region moves on, and the caller flushes the returned ``UnflushedFile`` when it
    /// chooses (`reached` is not told `.synced`); `nil` otherwise.
    @discardableResult
    public mutating func append<Failure: Error>(
        _ bytes: [UInt8], to path: String, limit: Int, deferringFlush: Bool = false,
        reached: (DurableFile.Milestone) -> Void = { _ in },
        failure: (DurableFile.Step, String, SystemCallError) -> Failure
    ) throws(Failure) -> UnflushedFile? {
        try self.append(FileBytes(bytes), to: path, limit: limit, deferringFlush: deferringFlush, reached: reached, failure: failure)
    }

    /// Appends records held in pieces (``append(_:to:limit:deferringFlush:reached:failure:)``),
    /// each piece written from its own storage: a record that shares bytes with a version in
    /// memory is not copied into a buffer first.
    @discardableResult
    public mutating func append<Failure: Error>(
        _ bytes: FileBytes, to path: String, limit: Int, deferringFlush: Bool = false,
        reached: (DurableFile.Milestone) -> Void = { _ in },
        failure: (DurableFile.Step, String, SystemCallError) -> Failure
    ) throws(Failure) -> UnflushedFile? {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(.create, path, .lastError(of: "open")) }
        defer { close(descriptor) }
        let newEnd = self.end + bytes.count
        let newSize = newEnd > self.size ? Self.grownSize(for: newEnd, limit: limit) : (self.size > limit ? max(newEnd, limit) : self.size)
        do throws(Failure) {
            // The records, then the end mark where the zeros now start (as much of it as the
            // zeros hold; the rest is written with the new zeros).
            let mark = Array(Self.endMark.prefix(max(0, min(Self.endMark.count, self.size - newEnd))))
            do {
                try FileDescriptorIO.writeAll(bytes + FileBytes(mark), to: descriptor, at: self.end)
            } catch {
                throw failure(.write, path, error)
            }
            if newSize > max(newEnd, self.size) {
                // Zeros are an optimization: on a full disk the file ends with the records.
                if (try? Self.writePadding(to: descriptor, recordsEnd: newEnd, from: max(newEnd, self.size), to: newSize)) == nil {
                    guard ftruncate(descriptor, off_t(newEnd)) == 0 else { throw failure(.write, path, .lastError(of: "ftruncate")) }
                    return try self.finish(
                        descriptor, end: newEnd, size: newEnd, path: path, deferringFlush: deferringFlush, reached: reached, failure: failure)
                }
            } else if newSize < self.size {
                guard ftruncate(descriptor, off_t(newSize)) == 0 else { throw failure(.write, path, .lastError(of: "ftruncate")) }
            }
            return try self.finish(
                descriptor, end: newEnd, size: newSize, path: path, deferringFlush: deferringFlush, reached: reached, failure: failure)
        } catch {
            // The padding as it was: nothing of the failed records may be read after a later,
            // shorter one.
            _ = try? Self.writePadding(to: descriptor, recordsEnd: self.end, from: self.end, to: min(newEnd + Self.endMark.count, self.size))
            _ = ftruncate(descriptor, off_t(self.size))
            throw error
        }
    }

    /// Flushes the appended records (or, `deferringFlush`, returns the file to flush later) and
    /// notes the region's new end and size.
    private mutating func finish<Failure: Error>(
        _ descriptor: Int32, end: Int, size: Int, path: String, deferringFlush: Bool,
        reached: (DurableFile.Milestone) -> Void, failure: (DurableFile.Step, String, SystemCallError) -> Failure
    ) throws(Failure) -> UnflushedFile? {
        reached(.written)
        var unflushed: UnflushedFile?
        if deferringFlush {
            do {
                unflushed = try UnflushedFile(duplicating: descriptor, path: path)
            } catch {
                throw failure(.sync, path, error)
            }
        } else {
            guard fdatasync(descriptor) == 0 else { throw failure(.sync, path, .lastError(of: "fdatasync")) }
        }
        self.end = end
        self.size = size
        if !deferringFlush { reached(.synced) }
        return unflushed
    }

    /// Writes the padding of a new file's region (the end mark, then zeros) to `descriptor`,
    /// after its records (written up to ``end``). On a full disk the file is cut back to its
    /// records instead, and the region ends there.
    ///
    /// - Throws: ``SystemCallError`` when writing fails otherwise (or the cut does).
    public mutating func writeZeros(to descriptor: Int32) throws(SystemCallError) {
        guard self.size > self.end else { return }
        do {
            try Self.writePadding(to: descriptor, recordsEnd: self.end, from: self.end, to: self.size)
        } catch where [ENOSPC, EDQUOT, EFBIG].contains(error.code) {
            guard ftruncate(descriptor, off_t(self.end)) == 0 else { throw .lastError(of: "ftruncate") }
            self.size = self.end
        }
    }

    /// Writes bytes `start..<size` of the padding after records that end at `end` (`start` ≥
    /// `end`): the end mark, as much of it as fits, then zeros, 64 KiB at a time.
    private static func writePadding(to descriptor: Int32, recordsEnd end: Int, from start: Int, to size: Int) throws(SystemCallError) {
        var offset = start
        let markEnd = min(end + Self.endMark.count, size)
        if offset < markEnd {
            try FileDescriptorIO.writeAll(Array(Self.endMark[(offset - end)..<(markEnd - end)]), to: descriptor, at: offset)
            offset = markEnd
        }
        let block = [UInt8](repeating: 0, count: min(64 << 10, max(0, size - offset)))
        while offset < size {
            let count = min(block.count, size - offset)
            try FileDescriptorIO.writeAll(count == block.count ? block : Array(block[..<count]), to: descriptor, at: offset)
            offset += count
        }
    }
}
