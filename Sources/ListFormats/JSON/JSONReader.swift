import CListFormatsScan

/// Reads a JSON or NDJSON file into a ``ParsedList``.
///
/// Accepted shapes: a top-level array of records; a top-level object whose
/// members are all arrays of records (a sectioned list, sections named by the
/// members, in file order); for NDJSON, one record per line (blank lines
/// skipped). Records are objects or scalars. A record's key, section and
/// content come from one pass of ``JSONScanner`` over it.
struct JSONReader {
    let options: ReadOptions

    /// The bytes counted to estimate the number of records (a record's line end or opening brace,
    /// ``ListAssembler/estimatedCount(of:in:from:)``).
    static let recordMarks = (ASCII.lineFeed, ASCII.openBrace)

    /// Reads the bytes of `bytes`, which `buffer` points to; `report` has
    /// what ``ListReader`` found (the byte-order mark), `validation` checks
    /// UTF-8 just ahead of the records.
    func read(
        _ buffer: UnsafeBufferPointer<UInt8>, keeping bytes: ListSource, report: ReadReport,
        validation: inout UTF8Validation
    ) throws(ListFormatError) -> ParsedList {
        var report = report
        let fields = try Fields(options: options)
        let storage = ListStorage(source: bytes, encoding: fields.encoding)
        let assembler = ListAssembler(
            storage: storage, source: buffer, isSectioned: options.sectionBy != nil,
            estimatedCount: ListAssembler.estimatedCount(of: Self.recordMarks, in: buffer, from: 0))
        guard buffer.baseAddress != nil else {
            guard options.format == .ndjson else {
                throw .unexpectedEndOfInput(
                    expected: "an array of records or an object of arrays",
                    at: SourcePosition(line: 1, column: 1, byteOffset: 0))
            }
            try validation.validateAll()
            return assembler.finish(schema: ListSchema(columns: []), format: options.format, report: report)
        }
        var state = ReadState(
            bytes: buffer, storage: storage, fields: fields.trie, assembler: assembler, validation: validation,
            keySlots: fields.keySlots, sectionSlot: fields.sectionSlot, options: options)
        var index = report.hadByteOrderMark ? 3 : 0
        switch options.format {
        case .ndjson:
            try state.readLines(from: &index, blankLines: &report.blankLineCount)
        default:
            try state.readDocument(from: &index)
        }
        try state.validation.validateAll()
        validation = state.validation
        return state.assembler.finish(
            schema: fields.publishedSchema(of: state.scanner.schema.columns), format: options.format, report: report)
    }

    /// What the options make of the fields: the trie the scanners capture and skip fields with,
    /// and the slots of the key and section fields.
    struct Fields {
        var trie = JSONFieldTrie()
        var keySlots: [Int] = []
        var keyPaths: [FieldPath] = []
        var sectionSlot: Int?
        var ignorePaths: [FieldPath] = []

        init(options: ReadOptions) throws(ListFormatError) {
            for name in options.key {
                let path = try FieldPath(parsing: name)
                keyPaths.append(path)
                keySlots.append(trie.addCapture(path))
            }
            if let name = options.sectionBy { sectionSlot = trie.addCapture(try FieldPath(parsing: name)) }
            for name in options.ignore {
                let path = try FieldPath(parsing: name)
                ignorePaths.append(path)
                trie.addIgnored(path)
            }
        }

        /// How the list's records decode.
        var encoding: RecordEncoding { .json(key: keyPaths, ignore: ignorePaths) }

        /// The schema of records whose member names are `columns`: ignored top-level members are
        /// not published, so they are no columns.
        func publishedSchema(of columns: [String]) -> ListSchema {
            let ignoredNames = Set(ignorePaths.compactMap(\.topLevelName))
            return ListSchema(columns: columns.filter { !ignoredNames.contains($0) })
        }
    }

    /// Reads the NDJSON lines of `buffer` from `start` (where a line starts) to its end, in chunks
    /// of about `chunkSize` bytes that each start where a line starts (``ChunkedRegion``): the
    /// records, blank lines and member names of each chunk are its own, whatever came before it.
    /// `storage` holds the whole file, of which `buffer` may be a prefix. The records array is
    /// sized for `estimatedCount` records when given (the first half of a split read: the whole
    /// region's, so that the second half's records are appended in place), else from `buffer`'s.
    func readLineChunks(
        _ buffer: UnsafeBufferPointer<UInt8>, storage: ListStorage, from start: Int, chunkSize: Int,
        estimatedCount: Int? = nil
    ) throws(ListFormatError) -> ChunkedRegion {
        let fields = try Fields(options: options)
        guard let base = buffer.baseAddress, start < buffer.count else { return ChunkedRegion() }
        var state = chunkReadState(
            buffer, storage: storage, fields: fields, from: start, to: buffer.count, estimatedCount: estimatedCount)
        var region = ChunkedRegion()
        var index = start
        var pages = ParsedPagesRelease(storage: storage, buffer: buffer, from: start)
        defer { pages.finish(at: index) }
        while index < buffer.count {
            pages.passed(index)
            let chunkStart = index
            state.startChunk(base: base, count: buffer.count, fields: fields.trie, maxDepth: options.maxNestingDepth)
            var blankLines = 0
            try state.readChunkLines(from: &index, until: chunkStart + chunkSize, blankLines: &blankLines)
            if index == chunkStart {
                // Nothing read up to the limit (cannot happen: a line is read whole): the rest in one.
                try state.readChunkLines(from: &index, until: .max, blankLines: &blankLines)
            }
            region.chunks.append(
                ChunkedRegion.Extent(
                    start: chunkStart, end: index, recordEnd: state.assembler.recordCount, blankLineCount: blankLines,
                    columns: fields.publishedSchema(of: state.scanner.schema.columns).columns,
                    sections: state.assembler.finishChunk()))
        }
        try state.validation.validateAll()
        (region.records, region.sectionOfRecord) = state.assembler.chunkedRecords()
        return region
    }
}

extension JSONReader {
    /// Where the records of a JSON array start (after its `[` and the white space that follows
    /// it), or the members of a JSON object of arrays (its first member's name), and which of
    /// the two. Throws for anything else — an empty array or object, an object with
    /// `section_by`, not JSON — which ``IncrementalListReader`` then reads whole.
    func documentStart(
        _ buffer: UnsafeBufferPointer<UInt8>, hadByteOrderMark: Bool
    ) throws(ListFormatError) -> (start: Int, isObject: Bool) {
        let fields = try Fields(options: options)
        guard let base = buffer.baseAddress else {
            throw .unexpectedEndOfInput(expected: "an array", at: SourcePosition(line: 1, column: 1, byteOffset: 0))
        }
        let lexer = JSONScanner(base: base, count: buffer.count, fields: fields.trie, maxDepth: options.maxNestingDepth).lexer
        var index = hadByteOrderMark ? 3 : 0
        lexer.skipWhitespace(&index)
        let opening = lexer.byte(at: index)
        guard opening == ASCII.openBracket || (opening == ASCII.openBrace && fields.sectionSlot == nil) else {
            throw lexer.unexpected(at: index, expected: "'['")
        }
        let closing = opening == ASCII.openBracket ? ASCII.closeBracket : ASCII.closeBrace
        index += 1
        guard lexer.moveToFirstItem(&index, closing: closing), index < buffer.count else {
            throw lexer.unexpected(at: index, expected: "a record")
        }
        return (index, opening == ASCII.openBrace)
    }

    /// Reads the records of the JSON array in `buffer` from `start` (where a record starts), in
    /// chunks of about `chunkSize` bytes that each start where a record starts
    /// (``ChunkedRegion``): up to `end`, which must be where a record starts, or, when `end` is
    /// the end of the buffer, through the array's `]` and the white space after it — unless
    /// `goesOn`: `buffer` is then a window of the file, which goes on after it.
    /// Its records array is sized for `estimatedCount` records when given (as
    /// ``readLineChunks(_:storage:from:chunkSize:estimatedCount:)``'s).
    func readArrayChunks(
        _ buffer: UnsafeBufferPointer<UInt8>, storage: ListStorage, from start: Int, to end: Int, goesOn: Bool = false,
        chunkSize: Int, estimatedCount: Int? = nil
    ) throws(ListFormatError) -> ChunkedRegion {
        try readDocumentChunks(
            buffer, storage: storage, from: start, to: end, goesOn: goesOn, chunkSize: chunkSize, estimatedCount: estimatedCount
        ) {
            state, index, limit, _ throws(ListFormatError) in
            guard try state.readArrayRecords(from: &index, until: limit) else { return false }
            // The array's end, and the white space after it.
            state.scanner.lexer.skipWhitespace(&index)
            return true
        }
    }

    /// Reads the members of the JSON object of arrays in `buffer` from `start`, which is the
    /// place `startsAt` says (a member's name, or a record in a member's array), in chunks of
    /// about `chunkSize` bytes that each start at such a place (``ChunkedRegion``): up to `end`,
    /// which must be the place `endsAt` says, or, when `end` is the end of the buffer, through the
    /// object's `}` and the white space after it (unless `goesOn`, as in ``readArrayChunks``).
    /// The member names of each chunk are its ``ChunkedRegion/Extent/sections``; whether a name
    /// is repeated is left to the caller.
    func readObjectChunks(
        _ buffer: UnsafeBufferPointer<UInt8>, storage: ListStorage, from start: Int, at startsAt: ChunkedRegion.Boundary,
        to end: Int, at endsAt: ChunkedRegion.Boundary, goesOn: Bool = false, chunkSize: Int
    ) throws(ListFormatError) -> ChunkedRegion {
        var place = startsAt
        return try readDocumentChunks(buffer, storage: storage, from: start, to: end, goesOn: goesOn, chunkSize: chunkSize) {
            state, index, limit, extent throws(ListFormatError) in
            extent.startsAt = place
            let isClosed = try state.readObjectChunk(from: &index, at: &place, until: limit, into: &extent)
            if !isClosed, index == end, place != endsAt {
                // `end` is no place where the chunk after it started in these bytes.
                throw .unexpectedEndOfInput(expected: "a record", at: state.scanner.lexer.position(of: end))
            }
            return isClosed
        }
    }

    /// Reads the JSON document in `buffer` from `start` (where a chunk starts) in chunks of about
    /// `chunkSize` bytes, each read by `readChunk` (given the state, the index, where to stop
    /// and the chunk's extent to fill in; it says whether it read through the document's end and
    /// the white space after it): up to `end`, which must be where a chunk starts, or the end of
    /// the buffer, where the document must end — unless `goesOn`: the buffer is a window of the
    /// file that ends at `end`, where a chunk of the file starts (the window's own offsets; the
    /// caller moves what it reads to the file's).
    private func readDocumentChunks(
        _ buffer: UnsafeBufferPointer<UInt8>, storage: ListStorage, from start: Int, to end: Int, goesOn: Bool,
        chunkSize: Int, estimatedCount: Int? = nil, readChunk: (inout ReadState, inout Int, Int, inout ChunkedRegion.Extent) throws(ListFormatError) -> Bool
    ) throws(ListFormatError) -> ChunkedRegion {
        let fields = try Fields(options: options)
        // Whether `end` is the end of the file.
        let endsFile = end == buffer.count && !goesOn
        guard start < buffer.count || goesOn else {
            // Where a record should start, the end of the file: the document never closes.
            throw .unexpectedEndOfInput(expected: "a value", at: SourcePosition(line: 0, column: 0, byteOffset: start))
        }
        guard start < end else { return ChunkedRegion() }
        guard let base = buffer.baseAddress else {
            throw .unexpectedEndOfInput(expected: "a value", at: SourcePosition(line: 0, column: 0, byteOffset: start))
        }
        var state = chunkReadState(
            buffer, storage: storage, fields: fields, from: start, to: end, estimatedCount: estimatedCount)
        var region = ChunkedRegion()
        var index = try Self.firstItem(of: state.scanner.lexer, from: start, to: end)
        var isClosed = false
        var pages = ParsedPagesRelease(storage: storage, buffer: buffer, from: start)
        defer { pages.finish(at: index) }
        while index < end, !isClosed {
            pages.passed(index)
            let chunkStart = region.chunks.isEmpty ? start : index
            state.startChunk(base: base, count: buffer.count, fields: fields.trie, maxDepth: options.maxNestingDepth)
            var extent = ChunkedRegion.Extent(start: chunkStart, end: chunkStart, recordEnd: 0)
            isClosed = try readChunk(&state, &index, min(chunkStart + chunkSize, end), &extent)
            if isClosed {
                // Only white space may follow the document, and only at the end of the buffer.
                guard index == buffer.count, endsFile else {
                    throw .trailingContent(at: state.scanner.lexer.position(of: index))
                }
            } else if index > end {
                // A record across `end`: `end` is no chunk's start in these bytes.
                throw .unexpectedEndOfInput(expected: "a record", at: state.scanner.lexer.position(of: end))
            }
            extent.end = index
            extent.recordEnd = state.assembler.recordCount
            extent.columns = fields.publishedSchema(of: state.scanner.schema.columns).columns
            extent.sections += state.assembler.finishChunk()
            region.chunks.append(extent)
        }
        guard isClosed || !endsFile else {
            // A comma and the end of the file: the document never closes.
            throw .unexpectedEndOfInput(expected: "a value", at: state.scanner.lexer.position(of: buffer.count))
        }
        if endsFile { try state.validation.validateAll() } else { try state.validation.validate(upTo: end) }
        (region.records, region.sectionOfRecord) = state.assembler.chunkedRecords()
        return region
    }
}

extension JSONReader {
    /// Where the first chunk of a region of a JSON document that starts at `start` reads from: a
    /// chunk kept before the region ended where a record (or a member's name) started in its
    /// version, but white space may follow it now, which the region's first chunk takes. Throws
    /// when there is nothing but white space before `end` (the caller then reads to the end).
    fileprivate static func firstItem(of lexer: JSONLexer, from start: Int, to end: Int) throws(ListFormatError) -> Int {
        var index = start
        lexer.skipWhitespace(&index)
        guard index < end || start == end else {
            throw .unexpectedEndOfInput(expected: "a record", at: lexer.position(of: end))
        }
        return index
    }

    /// A read of the records of `buffer` from `start` on, chunk by chunk, into a linear list.
    /// Its arrays are sized for the records of `start..<end`, the region to read (the records
    /// around a one-row edit, not every record up to the end of the file: issue 19, where the
    /// assembler's and the duplicate counter's buffers, advised for 2 MiB pages, had several
    /// megabytes zeroed per version of a JSON array) — or for `estimatedCount` when given (the
    /// first half of a split read, sized for the whole region's records).
    fileprivate func chunkReadState(
        _ buffer: UnsafeBufferPointer<UInt8>, storage: ListStorage, fields: Fields, from start: Int, to end: Int,
        estimatedCount: Int? = nil
    ) -> ReadState {
        let region = UnsafeBufferPointer(rebasing: buffer[..<min(max(end, start), buffer.count)])
        let assembler = ListAssembler(
            chunksOf: storage, source: buffer, isSectioned: fields.sectionSlot != nil,
            estimatedCount: estimatedCount ?? ListAssembler.estimatedCount(of: Self.recordMarks, in: region, from: start))
        return ReadState(
            bytes: buffer, storage: storage, fields: fields.trie, assembler: assembler,
            validation: UTF8Validation(bytes: buffer, from: start), keySlots: fields.keySlots,
            sectionSlot: fields.sectionSlot, options: options)
    }
}
