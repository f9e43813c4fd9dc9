import CListFormatsScan
import DurableFiles
import Synchronization

/// Reads the successive versions of one list file, re-parsing only what changed.
///
///     var reader = IncrementalListReader(options: ReadOptions(format: .csv(delimiter: .comma), key: ["id"]))
///     let first = try reader.read(bytes: version1)   // every chunk parsed
///     let second = try reader.read(bytes: version2)  // only the chunks that changed
///
/// The reader keeps, from its last read, the file's chunks — record-aligned slices of about
/// ``defaultChunkSize`` bytes, each with the XXH3-128 of its bytes and the records, blank lines,
/// ragged rows and member names read from it (``ChunkedRegion``) — and that list's records. Given
/// the next version, it hashes the chunks that still match from the start of the file and, at
/// their new offsets, from its end (memory speed: no parsing), re-reads only the bytes between
/// them, and moves the kept chunks' records by the change in length. An appended tail is the
/// common case: every old chunk matches from the start and only the tail is read.
///
/// The result is exactly the list ``ListReader`` reads from the same bytes — records with their
/// offsets, identities and content hashes, schema, report (duplicates, blank lines, ragged rows,
/// byte-order mark) — and a file that does not read throws the error ``ListReader`` throws (it
/// reads the file again to find it). A large region (the whole file on a first read) is read in
/// two halves at once on a machine with two cores (``SplitRead``), as ``ListReader`` reads it, so
/// that a first read costs what one pass costs. Every shape is read in chunks: CSV, TSV, NDJSON
/// and JSON arrays, with `section_by` or not, and JSON objects of arrays (a chunk there starts at
/// a record or at a member's name). Sections are made after the chunks are read
/// (``IncrementalListReader/Grouping``): with `section_by`, each record keeps its section's number
/// and the records are grouped in order of first appearance, as ``ListReader`` groups them; in a
/// JSON object of arrays, each member's records are the run from its name to the next. Empty JSON
/// arrays and objects are read whole. A changed header (or byte-order mark, or what opens a JSON
/// array or object) reads the whole file, and so does a version whose sections' names collide
/// (a repeated member name, two `section_by` values with one name), for the error.
///
/// Memory: the chunk table (about 100 bytes per chunk) beside the list's records, which the
/// returned list shares when it has no sections (a sectioned list has its records once more, in
/// sections, and the reader 4 bytes per record for its section). With a ``ListBufferPool``
/// (``read(bytes:recycling:)``), the records of a version are written into those of the version
/// two reads back once nothing else holds them, rather than into new memory.
public struct IncrementalListReader: Sendable {
    /// How to read.
    public let options: ReadOptions

    /// The bytes a chunk holds at least (it ends where the first record at or after that ends).
    public let chunkSize: Int

    /// Chunks of 64 KiB: hashing one costs a few microseconds, and a one-row change re-parses
    /// about that much.
    public static let defaultChunkSize = 64 << 10

    /// The bytes from which a region to parse is read in two halves at once (``SplitRead``).
    public let splitSize: Int

    /// 16 MiB: the size from which ``ListReader`` reads in halves too; below it the second thread
    /// does not pay for itself.
    public static let defaultSplitSize = SplitRead.minimumSize

    /// What the last read did.
    public private(set) var lastRead = Statistics()

    private(set) var memory: Memory?

    /// Keeps `bytes` as the last read's bytes in place of those it read, which must be the same
    /// bytes held otherwise (``ParsedList/holding(_:)``); nothing when it remembers no read of
    /// that length.
    public mutating func hold(_ bytes: FileBytes) {
        hold(bytes, records: nil)
    }

    /// Keeps `bytes` (``hold(_:)``; `nil`: those it has) and `records` as the last read's, in
    /// place of those it read, which must be the same held otherwise (issue 19: mapped from a
    /// file the daemon wrote them to, ``ParsedList/holding(_:records:)``); nothing when it
    /// remembers no read of that length and number of records.
    public mutating func hold(_ bytes: FileBytes?, records: ListRecords?) {
        guard var memory = self.memory, bytes.map({ memory.fileLength == $0.count }) ?? true,
            records.map({ memory.records.count == $0.count }) ?? true
        else { return }
        self.memory = nil
        if let bytes { memory.source = bytes }
        if let records { memory.records = records }
        self.memory = memory
    }

    /// What a read did: how much of the file it parsed.
    public struct Statistics: Hashable, Sendable {
        /// Whether it kept chunks of the previous version (false: it parsed every chunk).
        public var wasIncremental = false
        /// The bytes it parsed (the header not counted)…
        public var parsedByteCount = 0
        /// …which are these (the bytes between the chunks it kept).
        public var parsedByteRange = 0..<0
        /// The chunks it kept from the previous version.
        public var keptChunkCount = 0
        /// The chunks the list has.
        public var chunkCount = 0
        /// Whether it parsed in two halves at once (false: in order on one thread).
        public var wasSplit = false
        /// The records, in file order, at the start of the file that it kept from the previous
        /// version's chunks: the same bytes, so the same identities and contents, as the
        /// previous list's first ones (0 when it parsed every chunk).
        public var keptPrefixRecordCount = 0
        /// Likewise the records at the end of the file, kept from the previous version's last chunks.
        public var keptSuffixRecordCount = 0
        /// Whether it found the list free of duplicate identities by checking only the records
        /// it read again against the kept ones (the previous version had none), without counting
        /// over every record.
        public var checkedDuplicatesInChangedRecordsOnly = false
        /// The kept records whose identities that check read: none when the records read again
        /// have the identities of those they replace (a record edited in place), else every kept
        /// record (0 when it did not check).
        public var keptRecordsReadForDuplicates = 0
        /// The records it wrote into the list's records array: all of them into new memory,
        /// fewer into a retired version's array that already holds some (``ListBufferPool``),
        /// and on a first read only those after the first part's (split read: the second half's),
        /// whose array — sized for them all — becomes the list's.
        public var writtenRecordCount = 0
        /// The bytes at the start of the file that are the previous version's first bytes, as the
        /// XXH3-128 of the header and of the chunks it kept there says: so many bytes that the
        /// two versions have in common from the start, without comparing them (0 when it
        /// parsed every chunk). At most the shorter file's length, less ``keptSuffixByteCount``.
        public var keptPrefixByteCount = 0
        /// Likewise the bytes at the end of the file: the kept chunks that reach the end.
        public var keptSuffixByteCount = 0
        /// The hashes of the previous version's chunks it compared to find those it keeps that
        /// the file's read took as it brought the bytes in (``ReadHashes``)…
        public var chunkHashesFromRead = 0
        /// …and the bytes it hashed itself for that search, after the read (0 when the read's
        /// hashes served every comparison).
        public var bytesHashedForKeptChunks = 0
        /// Whether it kept the chunks inside the ends it was told are the previous version's
        /// (``read(bytes:shared:recycling:hashes:)``), hashing none of them.
        public var usedSharedEnds = false
        /// The bytes it copied to have in one stretch of memory bytes that were in pieces: none
        /// when one piece holds the region it parsed (and the header), the region (and a few
        /// bytes of header) when not, every byte when it read bytes in pieces whole. What
        /// shows that a version read after a small change costs no second copy of the file.
        public var copiedByteCount = 0
    }

    /// Creates a reader with no previous version. A region of at least `splitSize` bytes to
    /// parse is read in two halves at once when the machine has a second core (the default:
    /// the size from which ``ListReader`` does so too).
    public init(
        options: ReadOptions, chunkSize: Int = IncrementalListReader.defaultChunkSize,
        splitSize: Int = IncrementalListReader.defaultSplitSize
    ) {
        self.options = options
        self.chunkSize = max(chunkSize, 1)
        self.splitSize = max(splitSize, 1)
    }

    /// Whether `bytes` may be the previous version's: false when their length, header or a
    /// chunk's XXH3-128 differs from the previous version's (so the bytes differ), true
    /// otherwise (the same hashes: compare the bytes to be sure) and when there is none. Stops
    /// at the first chunk that differs; parses nothing.
    /// With `hashes` taken while `bytes` were read (``hashesWhileReading()``), the chunks they
    /// hashed are not hashed again.
    public func mayBePreviousBytes(_ bytes: [UInt8], hashes: ReadHashes? = nil) -> Bool {
        guard let memory else { return true }
        guard bytes.count == memory.fileLength else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            guard memory.dataStart <= buffer.count, Self.hash(buffer, 0, memory.dataStart) == memory.headerHash else { return false }
            var hashing = ChunkHashing(hashes.flatMap { $0.apply(to: buffer, of: memory) ? $0 : nil })
            return memory.chunks.indices.allSatisfy { index in
                let chunk = memory.chunks[index]
                return chunk.end <= buffer.count && hashing.hash(ofChunk: index, chunk, movedBy: 0, in: buffer) == chunk.hash
            }
        }
    }

    /// Forgets the previous version: the next read parses every chunk.
    public mutating func forget() {
        memory = nil
    }

    /// Reads the next version of the file: the list ``ListReader/read(bytes:)`` reads from
    /// `bytes`, re-parsing only the chunks that changed since the last read. After an error
    /// the next read parses every chunk. (``read(bytes:shared:recycling:hashes:)`` with the bytes
    /// as one piece.)
    public mutating func read(
        bytes: [UInt8], recycling pool: ListBufferPool? = nil, hashes: ReadHashes? = nil
    ) throws(ListFormatError) -> ParsedList {
        try read(bytes: FileBytes(bytes), recycling: pool, hashes: hashes)
    }

    /// Reads the next version of the file: the list ``ListReader/read(bytes:)`` reads from
    /// `bytes`, re-parsing only the chunks that changed since the last read. After an error
    /// the next read parses every chunk. The list holds `bytes` as they are, in their pieces.
    ///
    /// With `shared` — so many bytes at the start and at the end of `bytes` that are the same as
    /// the first and the last bytes of the version this reader read last (which only the caller
    /// knows: the watcher's read that shares unchanged stretches with the previous version,
    /// issue 19; debug builds check it) — the previous version's chunks that lie inside those
    /// ends are kept without hashing a byte of them, and only the bytes between are parsed: in
    /// place when one piece of `bytes` holds them (the changed middle), else copied first (that
    /// region only, ``Statistics/copiedByteCount``). A header that reads otherwise than the
    /// previous version's (compared by hash when the shared start does not cover it), and every
    /// error, read as without `shared`.
    /// Without `shared`, the chunks kept are found by their hashes, over the bytes in one
    /// stretch of memory (in place for one piece, else a temporary copy of them all).
    ///
    /// With `pool`, the records are written into the records array the pool keeps when nothing
    /// else holds it (a version two reads back, retired), rather than into new memory; and the
    /// previous version's records, and its bytes when they are one whole array, go to the pool
    /// for the read after this one.
    ///
    /// With `hashes`, taken while `bytes` were read (``hashesWhileReading()``, ``ReadHashes``),
    /// the chunks they hashed are not hashed again to find those kept; hashes taken from other
    /// bytes, or for another version, are not used.
    public mutating func read(
        bytes: FileBytes, shared: (prefix: Int, suffix: Int)? = nil, recycling pool: ListBufferPool? = nil,
        hashes: ReadHashes? = nil
    ) throws(ListFormatError) -> ParsedList {
        let previous = memory
        memory = nil
        lastRead = Statistics()
        defer {
            if let pool, let previous {
                pool.retire(
                    bytes: Self.retiredArray(previous.source, after: bytes),
                    records: Self.retiredRecords(previous.records, after: memory?.records), version: previous.version)
            }
        }
        guard bytes.count <= options.effectiveSizeLimit, !bytes.isEmpty else {
            return try ListReader(options: options).read(bytes: bytes.array)
        }
        do {
            let (list, memory, statistics): (ParsedList, Memory, Statistics)
            if let previous, let shared, let plan = sharingPlan(bytes, shared: shared, previous: previous) {
                // The plan reads a byte at each kept chunk's end of a line-based format and the
                // parse starts at the last kept one; each read maps a page of a version held as a
                // mapping (with the page cache's large folios, the folio around it), and the
                // sharing read had let the shared start go already: left mapped, every page of it
                // stayed resident (issue 19: 20 MiB of a 1M-row NDJSON file's state file after 32
                // one-row edits, the daemon's growth over them). The bytes stay the same.
                defer { bytes.releaseMappedPages(in: 0..<shared.prefix) }
                (list, memory, statistics) = try readInChunks(bytes, plan, spare: pool?.takeRecords() ?? ([], 0))
            } else {
                let copied = bytes.isContiguous ? 0 : bytes.count
                (list, memory, statistics) = try bytes.withContiguousBytes(in: 0..<bytes.count) { buffer throws(ListFormatError) in
                    var plan = try wholePlan(
                        buffer, previous: previous,
                        hashes: hashes.flatMap { hashes in previous.flatMap { hashes.apply(to: buffer, of: $0) ? hashes : nil } })
                    plan.copiedByteCount = copied
                    return try readInChunks(bytes, plan, spare: pool?.takeRecords() ?? ([], 0))
                }
            }
            self.memory = memory
            lastRead = statistics
            return list
        } catch {
            // The error (and its position) that one pass over the whole file reports.
            return try ListReader(options: options).read(bytes: bytes.array)
        }
    }

    /// The starts of the chunks of the version read last, in ascending order, with 0, where the
    /// records start after the header, and the end of the file: the places where a read of the
    /// next version may end the bytes it shares with this one at the start, or start those it
    /// shares at the end (``read(bytes:shared:recycling:hashes:)``). Empty when the reader holds
    /// no version (none read, or the last read failed or was read whole: then nothing is shared).
    public var chunkBoundaries: [Int] {
        guard let memory, !memory.chunks.isEmpty else { return [] }
        var boundaries = [0]
        boundaries.reserveCapacity(memory.chunks.count + 3)
        for start in [memory.dataStart] + memory.chunks.map(\.start) + [memory.fileLength] where start > boundaries[boundaries.count - 1] {
            boundaries.append(start)
        }
        return boundaries
    }

    /// The array `previous` is when it is one whole array that `bytes`, the version read after
    /// it, hold no piece of (what a pool may read the next version into), else none: an array
    /// the new version shares is its storage, not spare (the pool's gauge would count the live
    /// version's bytes as kept for the next read).
    private static func retiredArray(_ previous: FileBytes, after bytes: FileBytes) -> [UInt8] {
        let whole = wholeArray(previous)
        let address = whole.withUnsafeBufferPointer { $0.baseAddress }
        guard address != nil, !bytes.pieces.contains(where: { $0.storage.address == UInt(bitPattern: address) }) else { return [] }
        return whole
    }

    /// The array `previous`'s records are when they are one whole array that `records`, those of
    /// the version read after it, hold no run of (what a pool may write the next version's
    /// records into), else none: an array the new version shares is its storage, not spare.
    private static func retiredRecords(_ previous: ListRecords, after records: ListRecords?) -> [ListRecord] {
        guard previous.runs.count == 1, previous.runs[0].shift == 0, previous.runs[0].range == 0..<previous.runs[0].storage.count else { return [] }
        let address = previous.runs[0].storageAddress
        guard address != 0, !(records?.runs.contains { $0.storageAddress == address } ?? false) else { return [] }
        return previous.runs[0].storage.array ?? []
    }

    /// The array `bytes` are when they are one whole array (what a pool may read the next
    /// version into), else none.
    private static func wholeArray(_ bytes: FileBytes) -> [UInt8] {
        guard bytes.pieces.count == 1, bytes.pieces[0].range == 0..<bytes.pieces[0].storage.count else { return [] }
        return bytes.pieces[0].storage.array ?? []
    }

    // MARK: Memory

    /// What the reader keeps of the last version.
    struct Memory: Sendable {
        /// The header (and byte-order mark): its length and hash.
        var dataStart: Int
        var headerHash: ContentHash
        var fileLength: Int
        /// Whether the records are lines (CSV, NDJSON): a chunk that ends with a line feed reads
        /// the same whatever follows it. One that does not (a bare CR that a LF may join, a last
        /// line not ended) and a JSON array's last chunk (its `]`) may not.
        var isLineBased: Bool
        var chunks: [Chunk]
        /// The file's bytes (shared with the list), for the ``ListBufferPool`` once retired, and
        /// for debug builds to check the ends a read is told are shared.
        var source: FileBytes
        /// The list's records in file order (shared with a list without sections).
        var records: ListRecords
        var grouping: Grouping
        /// With `section_by`: the number of each record's section.
        var sectionOfRecord: [Int32]
        /// The canonical bytes of the value of each section, by number: the list's sections in
        /// order (`section_by`, or the members of a JSON object of arrays).
        var sectionValues: [[UInt8]]
        /// The records that repeat an earlier record's identity (``ReadReport/duplicateCount``).
        var duplicateCount: Int
        /// This version's number (from 1, unique in the process) and the previous version's (0:
        /// none), whose records these are, but for the records read again: those between the
        /// first `keptPrefixRecords` and the last `keptSuffixRecords`, the latter moved by
        /// `byteDelta` (0 and 0 when every chunk was parsed). Tells what a spare records array of
        /// the version before already holds of the next one (``JoinedRecords``).
        var version: UInt64
        var previousVersion: UInt64
        var previousRecordCount: Int
        var keptPrefixRecords: Int
        var keptSuffixRecords: Int
        var byteDelta: Int
    }

    /// Numbers versions: a spare records array is known to be a given version's by its number.
    private static let versionCounter = Atomic<UInt64>(1)

    /// How the records are grouped into sections.
    enum Grouping: Sendable {
        /// One linear list.
        case none
        /// By the value of the `section_by` field, sections in order of first appearance.
        case byValue
        /// By the member of a JSON object whose array holds them, members in file order.
        case byMember
    }

    /// One chunk of the last version.
    struct Chunk: Sendable {
        var start: Int
        var end: Int
        var hash: ContentHash
        /// Its records: `records[firstRecord ..< recordEnd]` of the ``Memory``.
        var firstRecord: Int
        var recordEnd: Int
        var blankLineCount: Int
        var paddedRowCount: Int
        var truncatedRowCount: Int
        var columns: [String]
        /// Whether its last byte is a line feed: what a version that shares the chunk's bytes
        /// (``sharingPlan(_:shared:previous:)``) need not read again — a byte read from a version
        /// held as mappings of its state files would map the pages around it (issue 19).
        var endsWithLineFeed: Bool
        /// What the chunk starts at.
        var startsAt: ChunkedRegion.Boundary
        /// Sections: with `section_by`, those of the chunk's records in order of first appearance
        /// in it; in a JSON object of arrays, the members whose names are in the chunk.
        var sections: [ChunkSection]
    }

    /// A section a chunk has: its number in ``Memory/sectionValues``, the model the chunk gives it,
    /// and in a JSON object of arrays the number of the member's first record.
    struct ChunkSection: Sendable {
        var number: Int32
        var model: SectionModel
        var firstRecord: Int
    }

    // MARK: Reading

    /// What the header says: where the rows start, how records decode, the schema (CSV), and
    /// how to read a region in chunks.
    private struct Header {
        var dataStart: Int
        var blankLineCount: Int
        var encoding: RecordEncoding
        var schema: ListSchema?
        /// Reads the records of the file from a chunk's start, the place the boundary says, to
        /// `end` (a chunk's start in the previous version, which the boundary says, or the end of
        /// the file); throws when `end` is no place to stop at. The records array is sized for
        /// the estimated count when one is given (the first half of a split read: the whole
        /// region's, ``recordMarks``), else for the records before `end`.
        var readRegion: (
            RegionWindow, ListStorage, _ start: Int, ChunkedRegion.Boundary, _ end: Int, ChunkedRegion.Boundary,
            _ estimatedCount: Int?
        ) throws(ListFormatError) -> ChunkedRegion
        /// The bytes counted to estimate a region's number of records
        /// (``ListAssembler/estimatedCount(of:in:from:)``).
        var recordMarks = JSONReader.recordMarks
        /// Whether a file in this format may go on after its last chunk (JSON arrays may not).
        var isLineBased = true
        var grouping: Grouping = .none
        /// A place near the middle of `start..<end` where a record probably starts, or -1: where
        /// a large region is split in two halves (``SplitRead``); the read checks the guess.
        var splitPoint: (UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int
    }

    private func readHeader(_ buffer: UnsafeBufferPointer<UInt8>, hadByteOrderMark: Bool) throws(ListFormatError) -> Header {
        let chunkSize = chunkSize
        switch options.format {
        case .csv(let delimiter):
            let reader = CSVReader(options: options, delimiter: delimiter.rawValue)
            guard let base = buffer.baseAddress else {
                throw .missingHeader(at: SourcePosition(line: 1, column: 1, byteOffset: 0))
            }
            var scanner = CSVScanner(base: base, count: buffer.count, delimiter: delimiter.rawValue)
            let header = try reader.readHeader(scanner: &scanner, hadByteOrderMark: hadByteOrderMark)
            let columns = header.columns
            return Header(
                dataStart: header.dataStart, blankLineCount: header.blankLineCount,
                encoding: .csv(columns.layout(delimiter: delimiter.rawValue)), schema: columns.published,
                readRegion: { window, storage, start, _, end, _, estimatedCount throws(ListFormatError) in
                    try reader.readRowChunks(
                        try Self.lines(of: window, to: end), storage: storage, columns: columns, from: start, chunkSize: chunkSize,
                        estimatedCount: estimatedCount)
                }, recordMarks: CSVReader.recordMarks, grouping: columns.section == nil ? .none : .byValue,
                splitPoint: { buffer, start, end in
                    Int(listsync_csv_split_point(buffer.baseAddress, Int64(end), Int64(start), delimiter.rawValue))
                })
        case .ndjson:
            let reader = JSONReader(options: options)
            return Header(
                dataStart: hadByteOrderMark ? 3 : 0, blankLineCount: 0,
                encoding: try JSONReader.Fields(options: options).encoding, schema: nil,
                readRegion: { window, storage, start, _, end, _, estimatedCount throws(ListFormatError) in
                    try reader.readLineChunks(
                        try Self.lines(of: window, to: end), storage: storage, from: start, chunkSize: chunkSize,
                        estimatedCount: estimatedCount)
                }, grouping: options.sectionBy == nil ? .none : .byValue,
                splitPoint: { buffer, start, end in
                    Int(listsync_json_split_point(buffer.baseAddress, Int64(end), Int64(start), Int32(LISTSYNC_JSON_LINES)))
                })
        case .json:
            let reader = JSONReader(options: options)
            let (dataStart, isObject) = try reader.documentStart(buffer, hadByteOrderMark: hadByteOrderMark)
            let encoding = try JSONReader.Fields(options: options).encoding
            guard !isObject else {
                // An object of arrays: read in order, on one thread.
                return Header(
                    dataStart: dataStart, blankLineCount: 0, encoding: encoding, schema: nil,
                    readRegion: { window, storage, start, startsAt, end, endsAt, _ throws(ListFormatError) in
                        try reader.readObjectChunks(
                            window.buffer, storage: storage, from: start, at: startsAt, to: end, at: endsAt, goesOn: window.goesOn,
                            chunkSize: chunkSize)
                    }, isLineBased: false, grouping: .byMember, splitPoint: { _, _, _ in -1 })
            }
            return Header(
                dataStart: dataStart, blankLineCount: 0, encoding: encoding, schema: nil,
                readRegion: { window, storage, start, _, end, _, estimatedCount throws(ListFormatError) in
                    try reader.readArrayChunks(
                        window.buffer, storage: storage, from: start, to: end, goesOn: window.goesOn, chunkSize: chunkSize,
                        estimatedCount: estimatedCount)
                }, isLineBased: false, grouping: options.sectionBy == nil ? .none : .byValue,
                splitPoint: { buffer, start, end in
                    Int(listsync_json_split_point(buffer.baseAddress, Int64(end), Int64(start), Int32(LISTSYNC_JSON_ARRAY)))
                })
        }
    }

    /// The lines of `window` before `end`, which must be where a line starts: read as if the file
    /// ended there, they read as they do in the whole file.
    private static func lines(of window: RegionWindow, to end: Int) throws(ListFormatError) -> UnsafeBufferPointer<UInt8> {
        let buffer = window.buffer
        guard (end == buffer.count && !window.goesOn) || (end > 0 && buffer[end - 1] == ASCII.lineFeed) else {
            throw .unexpectedEndOfInput(
                expected: "a line's end", at: SourcePosition(line: 0, column: 0, byteOffset: end))
        }
        return UnsafeBufferPointer(rebasing: buffer[0..<end])
    }

    /// The chunks of `previous` that `buffer` still has: `kept.prefix` from the start (at the
    /// same offsets), `kept.suffix...` to the end (moved by the change in length).
    private static func keptChunks(
        of previous: Memory, in buffer: UnsafeBufferPointer<UInt8>, hashing: inout ChunkHashing
    ) -> (prefix: Int, suffix: Int) {
        let chunks = previous.chunks
        var prefix = 0
        while prefix < chunks.count {
            let chunk = chunks[prefix]
            guard chunk.end <= buffer.count, hashing.hash(ofChunk: prefix, chunk, movedBy: 0, in: buffer) == chunk.hash,
                previous.isLineBased ? buffer[chunk.end - 1] == ASCII.lineFeed : chunk.end < previous.fileLength
            else { break }
            prefix += 1
        }
        let delta = buffer.count - previous.fileLength
        let regionStart = prefix == 0 ? previous.dataStart : chunks[prefix - 1].end
        var suffix = chunks.count
        while suffix > prefix {
            let chunk = chunks[suffix - 1]
            guard chunk.start + delta >= regionStart, hashing.hash(ofChunk: suffix - 1, chunk, movedBy: delta, in: buffer) == chunk.hash
            else { break }
            suffix -= 1
        }
        return (prefix, suffix)
    }

    /// The bytes of `previous` that the kept chunks (`..<prefix` and `suffix...`) and its header
    /// cover without a gap from the start of the file and up to its end: only bytes whose hash
    /// was compared count.
    private static func keptBytes(of previous: Memory, prefix: Int, suffix: Int) -> (prefix: Int, suffix: Int) {
        var start = previous.dataStart
        for chunk in previous.chunks[0..<prefix] {
            guard chunk.start == start else { break }
            start = chunk.end
        }
        var end = previous.fileLength
        for chunk in previous.chunks[suffix...].reversed() {
            guard chunk.end == end else { break }
            end = chunk.start
        }
        return (start, previous.fileLength - end)
    }

    static func hash(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> ContentHash {
        hash(UnsafeRawBufferPointer(buffer), start, end)
    }

    static func hash(_ buffer: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> ContentHash {
        StableHash.hash128(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
    }

    /// The hashes of a previous version's chunks in new bytes: those a read took
    /// (``ReadHashes``), else computed, counted either way (``Statistics``).
    struct ChunkHashing {
        let fromRead: ReadHashes?
        var fromReadCount = 0
        var hashedByteCount = 0

        init(_ fromRead: ReadHashes?) {
            self.fromRead = fromRead
        }

        mutating func hash(ofChunk index: Int, _ chunk: Chunk, movedBy delta: Int, in buffer: UnsafeBufferPointer<UInt8>) -> ContentHash {
            if let hash = fromRead?.hash(ofChunk: index, movedBy: delta) {
                assert(hash == IncrementalListReader.hash(buffer, chunk.start + delta, chunk.end + delta), "a read's hash of other bytes")
                fromReadCount += 1
                return hash
            }
            hashedByteCount += chunk.end - chunk.start
            return IncrementalListReader.hash(buffer, chunk.start + delta, chunk.end + delta)
        }
    }

    /// The bytes a region is read from: the whole file, or a window of it read at its own
    /// offsets (0 at the window's start), which the file goes on after when `goesOn`.
    struct RegionWindow {
        let buffer: UnsafeBufferPointer<UInt8>
        let goesOn: Bool
    }

    /// Where the bytes to parse are: the whole file in one stretch of memory, or in the pieces of
    /// the file's bytes (a region is then read in place when one piece holds it).
    private enum RegionSource {
        case whole(UnsafeBufferPointer<UInt8>)
        case pieces(FileBytes)
    }

    /// What a read keeps of the previous version and how it reads the rest: the header, the
    /// previous version (nil: none, or none to keep from), its chunks kept at the start
    /// (`..<prefix`) and at the end (`suffix...`).
    private struct Plan {
        var header: Header
        var headerHash: ContentHash
        var hadByteOrderMark: Bool
        var previous: Memory?
        var prefix: Int
        var suffix: Int
        var hashing: ChunkHashing
        var source: RegionSource
        var copiedByteCount: Int
        var usedSharedEnds: Bool
    }

    /// The plan for the file's bytes in one stretch of memory: its header read and hashed, the
    /// previous version's chunks kept by their hashes.
    private func wholePlan(_ buffer: UnsafeBufferPointer<UInt8>, previous: Memory?, hashes: ReadHashes?) throws(ListFormatError) -> Plan {
        let hadByteOrderMark = UTF8Validation.hasByteOrderMark(buffer)
        let header = try readHeader(buffer, hadByteOrderMark: hadByteOrderMark)
        let headerHash = Self.hash(buffer, 0, header.dataStart)
        var previous = previous
        if let memory = previous,
            memory.dataStart != header.dataStart || memory.headerHash != headerHash || memory.grouping != header.grouping
        {
            previous = nil
        }
        var hashing = ChunkHashing(hashes)
        let (prefix, suffix) = previous.map { Self.keptChunks(of: $0, in: buffer, hashing: &hashing) } ?? (0, 0)
        return Plan(
            header: header, headerHash: headerHash, hadByteOrderMark: hadByteOrderMark, previous: previous, prefix: prefix,
            suffix: suffix, hashing: hashing, source: .whole(buffer), copiedByteCount: 0, usedSharedEnds: false)
    }

    /// The plan for `bytes` whose first `shared.prefix` and last `shared.suffix` bytes are
    /// `previous`'s: the header read from its first bytes (in place when one piece holds them,
    /// which the shared start does), the chunks inside those ends kept without hashing. The
    /// header's bytes are known to be the previous version's when the shared start goes at least
    /// a byte past them (reading a header looks at the byte after it); otherwise (a change in the
    /// first chunk) their hash is compared, a few bytes. Nil when the ends are not within both
    /// files, or the header reads otherwise.
    private func sharingPlan(_ bytes: FileBytes, shared: (prefix: Int, suffix: Int), previous: Memory) -> Plan? {
        let count = bytes.count
        let length = previous.fileLength
        guard shared.prefix >= 0, shared.suffix >= 0, shared.prefix + shared.suffix <= min(count, length),
            !previous.chunks.isEmpty
        else { return nil }
        assert(
            bytes[0..<shared.prefix] == previous.source[0..<shared.prefix]
                && bytes[(count - shared.suffix)..<count] == previous.source[(length - shared.suffix)..<length],
            "ends said to be shared that differ from the previous version's")
        // The header reads from the bytes before where the records start and the byte there (a
        // LF after a CR); a byte-order mark is 3 bytes.
        let headerEnd = min(count, max(previous.dataStart + 1, 3))
        let read: (Header, Bool, ContentHash)? = try? bytes.withContiguousBytes(in: 0..<headerEnd) { buffer throws(ListFormatError) in
            let hadByteOrderMark = UTF8Validation.hasByteOrderMark(buffer)
            let header = try readHeader(buffer, hadByteOrderMark: hadByteOrderMark)
            let hash = shared.prefix > previous.dataStart ? previous.headerHash : Self.hash(buffer, 0, header.dataStart)
            return (header, hadByteOrderMark, hash)
        }
        guard let (header, hadByteOrderMark, headerHash) = read, header.dataStart == previous.dataStart,
            headerHash == previous.headerHash, header.grouping == previous.grouping
        else { return nil }

        // The chunks inside the shared ends, as ``keptChunks(of:in:hashing:)`` keeps them but
        // for the hashes: the bytes are the same.
        let chunks = previous.chunks
        var prefix = 0
        while prefix < chunks.count {
            let chunk = chunks[prefix]
            // (The chunk's bytes are the previous version's: whether it ends a line is known
            // without reading them.)
            guard chunk.end <= shared.prefix, previous.isLineBased ? chunk.endsWithLineFeed : chunk.end < length else { break }
            prefix += 1
        }
        let delta = count - length
        let regionStart = prefix == 0 ? previous.dataStart : chunks[prefix - 1].end
        var suffix = chunks.count
        while suffix > prefix {
            let chunk = chunks[suffix - 1]
            guard chunk.start >= length - shared.suffix, chunk.start + delta >= regionStart else { break }
            suffix -= 1
        }
        return Plan(
            header: header, headerHash: previous.headerHash, hadByteOrderMark: hadByteOrderMark, previous: previous,
            prefix: prefix, suffix: suffix, hashing: ChunkHashing(nil), source: .pieces(bytes),
            copiedByteCount: bytes.isContiguous(in: 0..<headerEnd) ? 0 : headerEnd, usedSharedEnds: true)
    }

    private func readInChunks(
        _ bytes: FileBytes, _ plan: Plan, spare: consuming (records: [ListRecord], version: UInt64)
    ) throws(ListFormatError) -> (ParsedList, Memory, Statistics) {
        let header = plan.header
        let headerHash = plan.headerHash
        let hadByteOrderMark = plan.hadByteOrderMark
        let previous = plan.previous
        let hashing = plan.hashing
        var copiedByteCount = plan.copiedByteCount
        let storage = ListStorage(source: bytes, encoding: header.encoding)
        let grouping = header.grouping

        let firstBoundary: ChunkedRegion.Boundary = grouping == .byMember ? .member : .record
        let old = previous ?? Memory(
            dataStart: header.dataStart, headerHash: headerHash, fileLength: header.dataStart, isLineBased: header.isLineBased,
            chunks: [], source: FileBytes(), records: ListRecords(), grouping: grouping, sectionOfRecord: [], sectionValues: [],
            duplicateCount: 0, version: 0, previousVersion: 0, previousRecordCount: 0, keptPrefixRecords: 0,
            keptSuffixRecords: 0, byteDelta: 0)
        let prefix = plan.prefix
        var suffix = plan.suffix
        let delta = bytes.count - old.fileLength
        let regionStart = prefix == 0 ? header.dataStart : old.chunks[prefix - 1].end
        // What the region starts at: what the first chunk not kept started at (the bytes before it are the same).
        let regionStartsAt = prefix < old.chunks.count ? old.chunks[prefix].startsAt : firstBoundary

        // The bytes between the kept chunks, read up to where the kept suffix starts: right, when
        // the read stops there where a record (or member) starts; otherwise (a quote that closes
        // in the suffix, a record across it) read on to the end of the file.
        var parts: [Part]
        var regionEnd = suffix < old.chunks.count ? old.chunks[suffix].start + delta : bytes.count
        let regionEndsAt = suffix < old.chunks.count ? old.chunks[suffix].startsAt : firstBoundary
        do {
            parts = try readRegion(
                header, plan.source, storage, regionStart, regionStartsAt, regionEnd, regionEndsAt, copied: &copiedByteCount)
        } catch {
            guard regionEnd < bytes.count else { throw error }
            suffix = old.chunks.count
            regionEnd = bytes.count
            parts = try readRegion(
                header, plan.source, storage, regionStart, regionStartsAt, regionEnd, regionEndsAt, copied: &copiedByteCount)
        }

        // The records: kept prefix, the region's, kept suffix moved.
        let prefixRecords = prefix == 0 ? 0 : old.chunks[prefix - 1].recordEnd
        let suffixRecords = suffix < old.chunks.count ? old.chunks[suffix].firstRecord : old.records.count
        // The parts' records are moved out of them, so that the join may take the first part's
        // array for the list's when nothing else holds it (a first read: no copy).
        var middleRecords: [[ListRecord]] = []
        middleRecords.reserveCapacity(parts.count)
        let partRecordCounts = parts.map(\.region.records.count)
        for index in parts.indices {
            middleRecords.append([])
            swap(&middleRecords[index], &parts[index].region.records)
        }
        // A spare array of the version before the previous one (A) already holds what the
        // previous version (B) kept of it: when that read kept the count and the length, every
        // record but those it read again; otherwise the records at the start that both reads kept.
        var spareHolds = SpareContents.nothing
        if let previous, spare.version != 0, spare.version == previous.previousVersion {
            if previous.previousRecordCount == old.records.count, previous.byteDelta == 0 {
                spareHolds = .previousBut(previous.keptPrefixRecords..<(old.records.count - previous.keptSuffixRecords))
            } else {
                spareHolds = .prefix(min(previous.keptPrefixRecords, prefixRecords))
            }
        }
        let records: ListRecords
        let writtenRecordCount: Int
        if grouping == .none, previous != nil, prefixRecords > 0 || suffixRecords < old.records.count {
            // A version read after another that keeps records at its ends (issue 19): the
            // previous version's records there, shared (the suffix moved by the change in
            // length), and the records read again in one new array of their size — not a second
            // records array. Joined into one array when the runs keep too much storage alive, or
            // are too many. (Nothing kept: the join below, into a retired version's array.)
            let middle = Self.exactArray(of: middleRecords)
            middleRecords = []
            let shared = old.records.records(in: 0..<prefixRecords) + ListRecords(middle)
                + old.records.records(in: suffixRecords..<old.records.count, shiftedBy: delta)
            records = shared.compacted(slack: Self.recordsSlack)
            writtenRecordCount = records.isContiguous && !shared.isContiguous ? records.count : middle.count
        } else {
            // A first read, a version that keeps no record, or a sectioned list: one array (the
            // previous version's records, when it keeps some, are one whole array then).
            // (A linear list's in runs keep none here: they are not copied into an array.)
            // (Records held as a mapping keep none here either: not copied into an array.)
            let isWhole = old.records.isContiguous && !old.records.holdsMappings
            let oldRecords = isWhole ? old.records.array : []
            var joined = JoinedRecords(
                prefix: oldRecords[0..<(isWhole ? prefixRecords : 0)], middle: middleRecords,
                suffix: oldRecords[(isWhole ? suffixRecords : 0)...], movedBy: delta)
            middleRecords = []
            records = ListRecords(joined.join(into: spare.records, holding: isWhole ? spareHolds : .nothing, previous: oldRecords))
            writtenRecordCount = joined.writtenCount
        }

        // The chunks, likewise; the region's sections numbered as the previous version's (new
        // ones after them), with the section of each record (`section_by`).
        var sectionValues = old.sectionValues
        var sectionNumbers = SectionNumbers(sectionValues)
        var regionSectionOfRecord: [Int32] = []
        var chunks = Array(old.chunks[0..<prefix])
        chunks.reserveCapacity(prefix + parts.reduce(0) { $0 + $1.region.chunks.count } + old.chunks.count - suffix)
        var firstRecord = prefixRecords
        for (part, partRecordCount) in zip(parts, partRecordCounts) {
            let partStart = firstRecord
            var regionRecord = 0
            for (chunkIndex, (extent, hash)) in zip(part.region.chunks, part.hashes).enumerated() {
                let recordEnd = partStart + extent.recordEnd
                var sections: [ChunkSection] = []
                for (number, section) in extent.sections.enumerated() {
                    sections.append(
                        ChunkSection(
                            number: sectionNumbers.number(of: section.canonical, in: &sectionValues), model: section.model,
                            firstRecord: grouping == .byMember ? partStart + extent.sectionStarts[number] : 0))
                }
                if grouping == .byValue {
                    for index in regionRecord..<extent.recordEnd {
                        regionSectionOfRecord.append(sections[Int(part.region.sectionOfRecord[index])].number)
                    }
                }
                regionRecord = extent.recordEnd
                chunks.append(
                    Chunk(
                        start: extent.start, end: extent.end, hash: hash,
                        firstRecord: firstRecord, recordEnd: recordEnd, blankLineCount: extent.blankLineCount,
                        paddedRowCount: extent.paddedRowCount, truncatedRowCount: extent.truncatedRowCount,
                        columns: extent.columns, endsWithLineFeed: part.endsWithLineFeed[chunkIndex] ?? (extent.end > 0 && bytes[extent.end - 1] == ASCII.lineFeed),
                        startsAt: extent.startsAt, sections: sections))
                firstRecord = recordEnd
            }
            firstRecord = partStart + partRecordCount
        }
        let recordDelta = firstRecord - suffixRecords
        for var chunk in old.chunks[suffix...] {
            chunk.start += delta
            chunk.end += delta
            chunk.firstRecord += recordDelta
            chunk.recordEnd += recordDelta
            for index in chunk.sections.indices { chunk.sections[index].firstRecord += recordDelta }
            chunks.append(chunk)
        }
        var sectionOfRecord: [Int32] = []
        if grouping == .byValue {
            sectionOfRecord = Array(old.sectionOfRecord[0..<prefixRecords])
            sectionOfRecord.reserveCapacity(records.count)
            sectionOfRecord += regionSectionOfRecord
            sectionOfRecord += old.sectionOfRecord[suffixRecords...]
        }

        var report = ReadReport()
        report.hadByteOrderMark = hadByteOrderMark
        report.blankLineCount = header.blankLineCount
        var columns = ColumnUnion()
        for chunk in chunks {
            report.blankLineCount += chunk.blankLineCount
            report.paddedRowCount += chunk.paddedRowCount
            report.truncatedRowCount += chunk.truncatedRowCount
            if header.schema == nil { columns.add(chunk.columns) }
        }
        report.recordCount = records.count

        let layout: ListLayout
        let recordsBySection: () -> [[ListRecord]]
        switch grouping {
        case .none:
            layout = .linear(records)
            recordsBySection = { [records.array] }
        case .byValue, .byMember:
            let grouped = try Self.sections(
                of: records.array, grouping: grouping, chunks: &chunks, sectionOfRecord: &sectionOfRecord,
                sectionValues: &sectionValues, namesMustDiffer: options.format == .json || options.format == .ndjson)
            layout = .sectioned(grouped)
            recordsBySection = { grouped.map(\.elements) }
            report.sectionCount = grouped.count
        }
        // Duplicates: none when the previous version had none and the records read again bring
        // none (checked against the kept ones); otherwise counted over every record.
        let keptSuffixRecords = old.records.count - suffixRecords
        var keptRecordsReadForDuplicates = 0
        let countedInChangedRecords =
            previous?.duplicateCount == 0
            && Self.changedRecordsRepeatNoIdentity(
                records, keptPrefix: prefixRecords, keptSuffix: keptSuffixRecords,
                replacing: old.records.records(in: prefixRecords..<suffixRecords), keptRecordsRead: &keptRecordsReadForDuplicates)
        if !countedInChangedRecords {
            var duplicates = DuplicateCounter(estimatedCount: records.count)
            for record in records { duplicates.add(record.differenceIdentifier.hash.low) }
            let sections = recordsBySection()
            let found = duplicates.duplicates(in: sections)
            report.duplicateCount = found.count
            report.firstDuplicateOffset = found.first.map { DuplicateCounter.byteOffset(ofRecord: $0, in: sections) }
        }

        let list = ParsedList(
            format: options.format, schema: header.schema ?? ListSchema(columns: columns.columns),
            layout: layout, report: report, storage: storage)
        list._checkInvariants()
        let memory = Memory(
            dataStart: header.dataStart, headerHash: headerHash, fileLength: bytes.count,
            isLineBased: header.isLineBased, chunks: chunks, source: bytes, records: records, grouping: grouping,
            sectionOfRecord: sectionOfRecord, sectionValues: sectionValues, duplicateCount: report.duplicateCount,
            version: Self.versionCounter.add(1, ordering: .relaxed).oldValue,
            previousVersion: previous?.version ?? 0, previousRecordCount: old.records.count,
            keptPrefixRecords: previous == nil ? 0 : prefixRecords, keptSuffixRecords: previous == nil ? 0 : keptSuffixRecords,
            byteDelta: previous == nil ? 0 : delta)
        let keptBytes = previous == nil ? (prefix: 0, suffix: 0) : Self.keptBytes(of: old, prefix: prefix, suffix: suffix)
        let statistics = Statistics(
            wasIncremental: previous != nil, parsedByteCount: regionEnd - regionStart, parsedByteRange: regionStart..<regionEnd,
            keptChunkCount: prefix + old.chunks.count - suffix, chunkCount: chunks.count, wasSplit: parts.count > 1,
            keptPrefixRecordCount: previous == nil ? 0 : prefixRecords,
            keptSuffixRecordCount: previous == nil ? 0 : keptSuffixRecords,
            checkedDuplicatesInChangedRecordsOnly: countedInChangedRecords,
            keptRecordsReadForDuplicates: keptRecordsReadForDuplicates,
            writtenRecordCount: writtenRecordCount,
            keptPrefixByteCount: keptBytes.prefix, keptSuffixByteCount: keptBytes.suffix,
            chunkHashesFromRead: hashing.fromReadCount, bytesHashedForKeptChunks: hashing.hashedByteCount,
            usedSharedEnds: plan.usedSharedEnds, copiedByteCount: copiedByteCount)
        return (list, memory, statistics)
    }

    /// The records of `parts`, one after the other, in an array of their size: the one part's
    /// own array when it has no more room than a quarter beyond its records (so that a version's
    /// storage is what it holds), else a copy.
    private static func exactArray(of parts: [[ListRecord]]) -> [ListRecord] {
        if parts.count == 1, parts[0].capacity <= parts[0].count + parts[0].count / 4 + 64 { return parts[0] }
        var records: [ListRecord] = []
        records.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for part in parts { records += part }
        return records
    }

    /// Records beyond a version's count its runs may keep alive before they are joined into one
    /// array (``ListRecords/compacted(slack:)``): 4 MiB of them, as the tracker's slack for bytes.
    static let recordsSlack = (4 << 20) / MemoryLayout<ListRecord>.stride

    /// A region read in chunks, with the XXH3-128 of each chunk's bytes.
    private struct Part {
        var region: ChunkedRegion
        var hashes: [ContentHash]
        /// Per chunk, whether its last byte is a line feed, read with its hash; `nil` for a
        /// chunk that ends where the window starts (its last byte is before the window).
        var endsWithLineFeed: [Bool?]

        /// The part `region` read from `buffer`, a window of what `storage` holds, its chunks
        /// hashed. The parse let go of the pages of a version held as a mapping as it went
        /// (``ParsedPagesRelease``); the hashes read them again, and let them go again a stretch
        /// at a time — left mapped, the whole file stayed resident at the end of a first load
        /// parsed from its checkpoint slot (issue 19: the load's peak, 98 MiB of an 82 MiB file).
        init(_ region: ChunkedRegion, of buffer: UnsafeBufferPointer<UInt8>, in storage: ListStorage) {
            self.region = region
            var pages = ParsedPagesRelease(storage: storage, buffer: buffer, from: region.chunks.first?.start ?? 0)
            var hashes: [ContentHash] = []
            var endsWithLineFeed: [Bool?] = []
            hashes.reserveCapacity(region.chunks.count)
            endsWithLineFeed.reserveCapacity(region.chunks.count)
            for chunk in region.chunks {
                hashes.append(IncrementalListReader.hash(buffer, chunk.start, chunk.end))
                // Read here, before the pages go: read later through the file's bytes, one byte
                // a chunk mapped a page (with the page cache's large folios, up to 2 MiB) at every
                // chunk's end, and left the whole file resident after a first read.
                endsWithLineFeed.append(chunk.end > 0 ? buffer[chunk.end - 1] == ASCII.lineFeed : nil)
                pages.passed(chunk.end)
            }
            pages.finish(at: region.chunks.last?.end ?? 0)
            self.hashes = hashes
            self.endsWithLineFeed = endsWithLineFeed
        }

        /// Moves the part read from a window that starts `delta` bytes into the file to the file's
        /// offsets, in place (its records array is not copied).
        mutating func move(by delta: Int) {
            guard delta != 0 else { return }
            region.records.withUnsafeMutableBufferPointer { records in
                for index in records.indices { records[index] = records[index].moved(by: delta) }
            }
            for index in region.chunks.indices {
                region.chunks[index].start += delta
                region.chunks[index].end += delta
            }
        }
    }

    /// Reads the records from `start` to `end` in chunks, and hashes the chunks
    /// (``readRegion(_:_:_:_:_:_:_:)``), from `source`: from a window of the file's pieces, in
    /// place when one piece holds the region (else a copy of the region, counted in `copied`).
    /// An empty region is read from the byte before it, which says whether a line ends there.
    private func readRegion(
        _ header: Header, _ source: RegionSource, _ storage: ListStorage,
        _ start: Int, _ startsAt: ChunkedRegion.Boundary, _ end: Int, _ endsAt: ChunkedRegion.Boundary, copied: inout Int
    ) throws(ListFormatError) -> [Part] {
        switch source {
        case .whole(let buffer):
            return try readRegion(header, RegionWindow(buffer: buffer, goesOn: false), storage, start, startsAt, end, endsAt)
        case .pieces(let bytes):
            let low = start == end ? max(start - 1, 0) : start
            if !bytes.isContiguous(in: low..<end) { copied += end - low }
            var parts = try bytes.withContiguousBytes(in: low..<end) { buffer throws(ListFormatError) in
                try readRegion(
                    header, RegionWindow(buffer: buffer, goesOn: end < bytes.count), storage, start - low, startsAt, end - low,
                    endsAt)
            }
            for index in parts.indices { parts[index].move(by: low) }
            return parts
        }
    }

    /// Reads the records from `start` to `end` in chunks, and hashes the chunks: when the region
    /// has at least ``splitSize`` bytes, in two halves at once (``SplitRead``), the second from
    /// where a record probably starts near the middle. The guess is checked: the first half, read
    /// as if the file ended there, must stop right there, which it does only where one reader
    /// going through the region in order finds a record's start. Otherwise (a quote or a string
    /// open across it) the region is read again in order and the second half's work dropped
    /// (the first half's too: a rare case, which then costs about 1.5 reads on one thread).
    /// Either way the parts, one after the other, read as one pass reads the region.
    private func readRegion(
        _ header: Header, _ window: RegionWindow, _ storage: ListStorage,
        _ start: Int, _ startsAt: ChunkedRegion.Boundary, _ end: Int, _ endsAt: ChunkedRegion.Boundary
    ) throws(ListFormatError) -> [Part] {
        let buffer = window.buffer
        let split = end - start >= splitSize && SplitRead.hasSecondCore ? header.splitPoint(buffer, start, end) : -1
        guard split > start, split < end else {
            return [Part(try header.readRegion(window, storage, start, startsAt, end, endsAt, nil), of: buffer, in: storage)]
        }
        // The first half's records array is sized for the whole region's records, so that the
        // join appends the second half's into it rather than copying both into a new array
        // (``JoinedRecords/join(into:holding:previous:)``; issue 19: the peak of a load).
        let regionCount = ListAssembler.estimatedCount(
            of: header.recordMarks, in: UnsafeBufferPointer(rebasing: buffer[..<end]), from: start)
        var first: Result<Part, ListFormatError>?
        var second: Result<Part, ListFormatError>?
        SplitRead.both(
            {
                first = Result { () throws(ListFormatError) in
                    Part(try header.readRegion(window, storage, start, startsAt, split, .record, regionCount), of: buffer, in: storage)
                }
            },
            {
                second = Result { () throws(ListFormatError) in
                    Part(try header.readRegion(window, storage, split, .record, end, endsAt, nil), of: buffer, in: storage)
                }
            })
        guard case .success(let firstPart)? = first, let second else {
            (first, second) = (nil, nil)
            return [Part(try header.readRegion(window, storage, start, startsAt, end, endsAt, nil), of: buffer, in: storage)]
        }
        return [firstPart, try second.get()]
    }

    /// Names in order of first appearance, from lists of names in order.
    private struct ColumnUnion {
        var columns: [String] = []
        private var known: Set<String> = []

        mutating func add(_ names: [String]) {
            for name in names where known.insert(name).inserted { columns.append(name) }
        }
    }
}
