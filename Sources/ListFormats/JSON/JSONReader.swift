/// Reads a JSON or NDJSON file into a ``ParsedList``.
///
/// Accepted shapes: a top-level array of records; a top-level object whose
/// members are all arrays of records (a sectioned list, sections named by the
/// members, in file order); for NDJSON, one record per line (blank lines
/// skipped). Records are objects or scalars. A record's key, section and
/// content come from one pass of ``JSONScanner`` over it.
struct JSONReader {
    let options: ReadOptions

    /// Reads the bytes of `bytes`, which `buffer` points to (checked UTF-8);
    /// `report` has what the check found.
    func read(
        _ buffer: UnsafeBufferPointer<UInt8>, keeping bytes: [UInt8], report: ReadReport
    ) throws(ListFormatError) -> ParsedList {
        var report = report

        var fields = JSONFieldTrie()
        var keySlots: [Int] = []
        for name in options.key { keySlots.append(fields.addCapture(try FieldPath(parsing: name))) }
        let sectionSlot = try options.sectionBy.map { name throws(ListFormatError) in
            fields.addCapture(try FieldPath(parsing: name))
        }
        for name in options.ignore { fields.addIgnored(try FieldPath(parsing: name)) }

        let storage = ListStorage(source: bytes, encoding: .json, keyFieldCount: options.key.count)
        let assembler = ListAssembler(
            storage: storage, source: buffer, isSectioned: options.sectionBy != nil,
            estimatedCount: ListAssembler.estimatedCount(of: (ASCII.lineFeed, ASCII.openBrace), in: buffer, from: 0))
        guard let base = buffer.baseAddress else {
            guard options.format == .ndjson else {
                throw .unexpectedEndOfInput(
                    expected: "an array of records or an object of arrays",
                    at: SourcePosition(line: 1, column: 1, byteOffset: 0))
            }
            var empty = assembler
            return empty.finish(schema: ListSchema(columns: []), format: options.format, report: report)
        }
        var state = ReadState(
            scanner: JSONScanner(base: base, count: buffer.count, fields: fields, maxDepth: options.maxNestingDepth),
            assembler: assembler, keySlots: keySlots, sectionSlot: sectionSlot, options: options)
        var index = report.hadByteOrderMark ? 3 : 0
        switch options.format {
        case .ndjson:
            try state.readLines(from: &index, blankLines: &report.blankLineCount)
        default:
            try state.readDocument(from: &index)
        }
        return state.assembler.finish(
            schema: ListSchema(columns: state.scanner.schema.columns), format: options.format, report: report)
    }
}

/// The state of one JSON read: the scanner, the records collected so far,
/// and the capture slots of the key and section fields.
private struct ReadState: ~Copyable {
    var scanner: JSONScanner
    var assembler: ListAssembler
    let keySlots: [Int]
    let sectionSlot: Int?
    let options: ReadOptions
    /// Canonical key and section bytes.
    var canonical = ByteScratch(capacity: 256)

    init(scanner: consuming JSONScanner, assembler: ListAssembler, keySlots: [Int], sectionSlot: Int?, options: ReadOptions) {
        self.scanner = scanner
        self.assembler = assembler
        self.keySlots = keySlots
        self.sectionSlot = sectionSlot
        self.options = options
    }

    // MARK: Shapes

    /// Reads a JSON document: an array of records or an object of sections.
    mutating func readDocument(from index: inout Int) throws(ListFormatError) {
        scanner.lexer.skipWhitespace(&index)
        switch scanner.lexer.byte(at: index) {
        case ASCII.openBracket:
            try readRecordArray(from: &index, section: nil)
        case ASCII.openBrace:
            guard sectionSlot == nil else { throw .sectionByOnSectionedFile(at: scanner.lexer.position(of: index)) }
            assembler.useSections()
            try readSections(from: &index)
        case ASCII.quote:
            throw .unexpectedTopLevelValue(found: "a string", at: scanner.lexer.position(of: index))
        case ASCII.minus, .some(ASCII.zero...ASCII.nine):
            throw .unexpectedTopLevelValue(found: "a number", at: scanner.lexer.position(of: index))
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            throw .unexpectedTopLevelValue(found: "a literal", at: scanner.lexer.position(of: index))
        default:
            throw scanner.lexer.unexpected(at: index, expected: "an array of records or an object of arrays")
        }
        scanner.lexer.skipWhitespace(&index)
        if index < scanner.lexer.count {
            let error = scanner.lexer.unexpected(at: index, expected: "the end of the file")
            if case .comment = error { throw error }
            throw .trailingContent(at: scanner.lexer.position(of: index))
        }
    }

    /// Reads NDJSON: one record per line, blank lines skipped.
    mutating func readLines(from index: inout Int, blankLines: inout Int) throws(ListFormatError) {
        var lineIsEmpty = true
        while index < scanner.lexer.count {
            switch scanner.lexer.byte(at: index) {
            case ASCII.lineFeed:
                if lineIsEmpty { blankLines += 1 }
                lineIsEmpty = true
                index += 1
            case ASCII.space, ASCII.tab, ASCII.carriageReturn:
                index += 1
            default:
                guard lineIsEmpty else {
                    let error = scanner.lexer.unexpected(at: index, expected: "the end of the line")
                    if case .comment = error { throw error }
                    throw .trailingContent(at: scanner.lexer.position(of: index))
                }
                let (record, content) = try scanner.scanRecord(at: &index)
                if let lineFeed = scanner.lexer.firstLineFeed(from: record.start, to: record.end) {
                    throw .recordSpansLines(at: scanner.lexer.position(of: lineFeed))
                }
                try add(record, content: content, section: nil)
                lineIsEmpty = false
            }
        }
    }

    /// Reads `{"name": [records], …}`; each member is a section.
    private mutating func readSections(from index: inout Int) throws(ListFormatError) {
        index += 1
        var firstOffsets: [Int] = []
        try readSequence(from: &index, closing: ASCII.closeBrace) { state, index throws(ListFormatError) in
            guard state.scanner.lexer.byte(at: index) == ASCII.quote else {
                throw state.scanner.lexer.unexpected(at: index, expected: "a section name")
            }
            let name = try state.scanner.scanName(at: &index)
            let text = state.scanner.text(of: name)
            state.canonical.truncate(to: 0)
            state.scanner.appendCanonical(name, to: &state.canonical)
            let (section, isNew) = state.assembler.section(forCanonical: state.canonical.bytes()) { .string(text) }
            guard isNew else {
                throw .duplicateMemberName(
                    text, at: state.scanner.lexer.position(of: name.start),
                    first: state.scanner.lexer.position(of: firstOffsets[section]))
            }
            firstOffsets.append(name.start)
            state.scanner.lexer.skipWhitespace(&index)
            guard state.scanner.lexer.byte(at: index) == ASCII.colon else {
                throw state.scanner.lexer.unexpected(at: index, expected: "':'")
            }
            index += 1
            state.scanner.lexer.skipWhitespace(&index)
            guard state.scanner.lexer.byte(at: index) == ASCII.openBracket else {
                guard index < state.scanner.lexer.count else { throw state.scanner.lexer.unexpected(at: index, expected: "'['") }
                throw .sectionNotArray(text, at: state.scanner.lexer.position(of: index))
            }
            try state.readRecordArray(from: &index, section: section)
        }
    }

    /// Reads `[record, …]`, all in `section` (or by `section_by`).
    private mutating func readRecordArray(from index: inout Int, section: Int?) throws(ListFormatError) {
        index += 1
        try readSequence(from: &index, closing: ASCII.closeBracket) { state, index throws(ListFormatError) in
            let (record, content) = try state.scanner.scanRecord(at: &index)
            try state.add(record, content: content, section: section)
        }
    }

    /// Reads comma-separated items up to `closing` (the opening bracket is
    /// behind `index`), rejecting trailing commas.
    private mutating func readSequence(
        from index: inout Int, closing: UInt8, item: (inout ReadState, inout Int) throws(ListFormatError) -> Void
    ) throws(ListFormatError) {
        guard scanner.lexer.moveToFirstItem(&index, closing: closing) else { return }
        repeat {
            try item(&self, &index)
        } while try scanner.lexer.moveToNextItem(&index, closing: closing)
    }

    // MARK: Records

    /// Adds a scanned record: its section and key.
    private mutating func add(_ record: ValueDigest, content: ContentHash, section fixedSection: Int?) throws(ListFormatError) {
        var section = fixedSection ?? 0
        if let sectionSlot {
            let value = try captured(sectionSlot, name: options.sectionBy ?? "", record: record)
            canonical.truncate(to: 0)
            scanner.appendCanonical(value, to: &canonical)
            let bytes = scanner.lexer.buffer(value.start, value.end)
            section = assembler.section(forCanonical: canonical.bytes()) { JSONValueDecoder.value(of: bytes) }.index
        }
        switch keySlots.count {
        case 0:
            assembler.append(start: record.start, end: record.end, key: .content, content: content, section: section)
        case 1:
            let value = try captured(keySlots[0], name: options.key[0], record: record)
            if value.isCanonicalInFile {
                assembler.append(
                    start: record.start, end: record.end, key: .source(start: value.start, end: value.end),
                    content: content, section: section)
                return
            }
            canonical.truncate(to: 0)
            scanner.appendCanonical(value, to: &canonical)
            assembler.append(
                start: record.start, end: record.end, key: .bytes(canonical.bytes()), content: content, section: section)
        default:
            canonical.truncate(to: 0)
            for (part, slot) in keySlots.enumerated() {
                let value = try captured(slot, name: options.key[part], record: record)
                let prefix = KeyCanonicalForm.beginField(in: &canonical)
                scanner.appendCanonical(value, to: &canonical)
                KeyCanonicalForm.endField(startedAt: prefix, in: &canonical)
            }
            assembler.append(
                start: record.start, end: record.end, key: .bytes(canonical.bytes()), content: content, section: section)
        }
    }

    private func captured(_ slot: Int, name: String, record: ValueDigest) throws(ListFormatError) -> ValueDigest {
        let value = scanner.captures[slot]
        guard !value.isAbsent else { throw .missingField(name, at: scanner.lexer.position(of: record.start)) }
        return value
    }
}
