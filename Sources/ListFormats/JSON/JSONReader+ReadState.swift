import CListFormatsScan

extension JSONReader {
    /// The state of one JSON read: the scanners, the records collected so far,
    /// and the capture slots of the key and section fields.
    struct ReadState: ~Copyable {
        let bytes: UnsafeBufferPointer<UInt8>
        let storage: ListStorage
        let fields: JSONFieldTrie
        var scanner: JSONScanner
        /// The fast path, when the options allow it.
        var flatRecords: JSONFlatRecordScanner?
        var assembler: ListAssembler
        var validation: UTF8Validation
        let keySlots: [Int]
        let sectionSlot: Int?
        let options: ReadOptions
        /// Canonical key and section bytes.
        var canonical = ByteScratch(capacity: 256)
        /// Where each `section_by` section's name was first met: the name a JSON rendering gives
        /// the section (``SectionModel/name``) must be the only section's of that name.
        var sectionNames: [String: SourcePosition] = [:]

        /// The state of a read of `bytes` (not empty) into `assembler`.
        init(
            bytes: UnsafeBufferPointer<UInt8>, storage: ListStorage, fields: JSONFieldTrie,
            assembler: consuming ListAssembler, validation: UTF8Validation, keySlots: [Int], sectionSlot: Int?,
            options: ReadOptions
        ) {
            self.bytes = bytes
            self.storage = storage
            self.fields = fields
            // A non-empty buffer has a base address.
            scanner = JSONScanner(
                base: bytes.baseAddress.unsafelyUnwrapped, count: bytes.count, fields: fields,
                maxDepth: options.maxNestingDepth)
            flatRecords = JSONFlatRecordScanner(fields: fields)
            self.assembler = assembler
            self.validation = validation
            self.keySlots = keySlots
            self.sectionSlot = sectionSlot
            self.options = options
        }

        // MARK: Halves

        /// A state for reading the records from `start` on another thread (see
        /// ``SplitRead``): the same options, its own scanners and assembler.
        func secondHalf(from start: Int, estimatedCount: Int) -> ReadState {
            ReadState(
                bytes: bytes, storage: storage, fields: fields,
                assembler: ListAssembler(secondHalfOf: storage, source: bytes, estimatedCount: estimatedCount),
                validation: UTF8Validation(bytes: bytes, from: start), keySlots: keySlots, sectionSlot: sectionSlot,
                options: options)
        }

        /// Reads the records from `index` up to `split` here, and those from
        /// `split` on with `second`, at the same time, with `readHalf` (given
        /// the state, the index, where to stop and a blank-line count; it says
        /// whether it read to the end rather than stopping there). When the
        /// first half stopped right at `split`, adds the second half's records
        /// and leaves `index` where it ended; otherwise the first half reads on
        /// alone. Returns the blank lines counted.
        mutating func readInHalves(
            from index: inout Int, split: Int, second: consuming ReadState,
            _ readHalf: (inout ReadState, inout Int, Int, inout Int) throws(ListFormatError) -> Bool
        ) throws(ListFormatError) -> Int {
            var second = second
            var secondIndex = split
            var firstBlankLines = 0
            var secondBlankLines = 0
            var firstResult: Result<Bool, ListFormatError> = .success(false)
            var secondError: ListFormatError?
            SplitRead.both(
                {
                    firstResult = Result { () throws(ListFormatError) in try readHalf(&self, &index, split, &firstBlankLines) }
                },
                {
                    do throws(ListFormatError) {
                        _ = try readHalf(&second, &secondIndex, .max, &secondBlankLines)
                    } catch {
                        secondError = error
                    }
                })
            // Read to the end before `split` (the guess was past the records): done.
            guard try !firstResult.get() else { return firstBlankLines }
            guard index == split else {
                // The guess was wrong: read on alone.
                _ = try readHalf(&self, &index, .max, &firstBlankLines)
                return firstBlankLines
            }
            if let secondError { throw secondError }
            try validation.validate(upTo: split)
            validation = second.validation
            scanner.schema.add(columnsOf: second.scanner.schema)
            assembler.append(second.assembler)
            index = secondIndex
            return firstBlankLines + secondBlankLines
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

        /// Reads NDJSON: one record per line, blank lines skipped. A large file
        /// is read in two halves split at a line start.
        mutating func readLines(from index: inout Int, blankLines: inout Int) throws(ListFormatError) {
            let count = bytes.count
            let split =
                sectionSlot == nil && SplitRead.isWorthIt(count - index)
                ? Int(listsync_json_split_point(bytes.baseAddress, Int64(count), Int64(index), Int32(LISTSYNC_JSON_LINES)))
                : -1
            guard split > index else {
                try readLines(from: &index, until: .max, blankLines: &blankLines)
                return
            }
            let second = secondHalf(from: split, estimatedCount: assembler.estimatedRecordCount / 2)
            blankLines += try readInHalves(from: &index, split: split, second: second) {
                state, index, limit, blankLines throws(ListFormatError) in
                try state.readLines(from: &index, until: limit, blankLines: &blankLines)
                return index >= state.bytes.count
            }
        }

        /// Reads the lines from `index` (a line start) up to the first line that
        /// starts at or after `limit` (`.max`: all of them).
        private mutating func readLines(from index: inout Int, until limit: Int, blankLines: inout Int) throws(ListFormatError) {
            var lineIsEmpty = true
            while index < min(limit, bytes.count) {
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
                    lineIsEmpty = false
                    switch try readFlatRecords(from: &index, until: limit, mode: .lines, section: nil, blankLines: &blankLines) {
                    case .atEnd: return
                    case .afterRecord: continue
                    case .atRecord:
                        // A line at the limit, or a record the complete scanner reads.
                        guard index < limit else { return }
                    }
                    let (record, content) = try scanner.scanRecord(at: &index)
                    if let lineFeed = scanner.lexer.firstLineFeed(from: record.start, to: record.end) {
                        throw .recordSpansLines(at: scanner.lexer.position(of: lineFeed))
                    }
                    try validation.validate(upTo: record.end)
                    try add(record, content: content, captures: .scanner, section: nil)
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

        /// Reads `[record, …]`, all in `section` (or by `section_by`). A large
        /// array of a linear list is read in two halves split at a record.
        private mutating func readRecordArray(from index: inout Int, section: Int?) throws(ListFormatError) {
            index += 1
            guard scanner.lexer.moveToFirstItem(&index, closing: ASCII.closeBracket) else { return }
            let count = bytes.count
            let split =
                section == nil && sectionSlot == nil && SplitRead.isWorthIt(count - index)
                ? Int(listsync_json_split_point(bytes.baseAddress, Int64(count), Int64(index), Int32(LISTSYNC_JSON_ARRAY)))
                : -1
            guard split > index else {
                try readRecords(from: &index, until: .max, section: section)
                return
            }
            let second = secondHalf(from: split, estimatedCount: assembler.estimatedRecordCount / 2)
            _ = try readInHalves(from: &index, split: split, second: second) { state, index, limit, _ throws(ListFormatError) in
                try state.readRecords(from: &index, until: limit, section: section)
            }
        }

        /// Reads the records of an array from `index` (the start of a record):
        /// up to its `]` (returns `true`, `index` after it), or up to the first
        /// record that starts at or after `limit` (returns `false`, `index` at
        /// its start; `.max`: no limit).
        @discardableResult
        private mutating func readRecords(from index: inout Int, until limit: Int, section: Int?) throws(ListFormatError) -> Bool {
            var blankLines = 0
            while index < limit {
                // Flat records as far as they go; then one record the complete
                // scanner reads — unless the fast path stopped after a record.
                switch try readFlatRecords(from: &index, until: limit, mode: .array, section: section, blankLines: &blankLines) {
                case .atRecord:
                    guard index < limit else { return false }
                    let (record, content) = try scanner.scanRecord(at: &index)
                    try validation.validate(upTo: record.end)
                    try add(record, content: content, captures: .scanner, section: section)
                case .afterRecord, .atEnd:
                    break
                }
                guard try scanner.lexer.moveToNextItem(&index, closing: ASCII.closeBracket) else { return true }
            }
            return false
        }

        /// Reads the flat records from `index` (the start of a record) with the
        /// fast path, for as long as it reads them; returns where it stopped.
        private mutating func readFlatRecords(
            from index: inout Int, until limit: Int, mode: JSONFlatRecordScanner.Mode, section: Int?, blankLines: inout Int
        ) throws(ListFormatError) -> JSONFlatRecordScanner.Stop {
            let identity: Int32 =
                switch (section, sectionSlot, keySlots.count) {
                case (nil, nil, 0): Int32(LISTSYNC_IDENTITY_CONTENT)
                case (nil, nil, 1): Int32(LISTSYNC_IDENTITY_KEY)
                default: Int32(LISTSYNC_IDENTITY_OTHER)
                }
            while true {
                guard
                    let batch = flatRecords?.scan(
                        bytes, from: index, until: limit, mode: mode, identity: identity, keySlot: keySlots.first ?? 0)
                else { return .atRecord }
                blankLines += batch.blankLineCount
                // The fast path leaves UTF-8 to be checked in bulk: only inside its
                // strings can there be bytes that are not ASCII.
                if batch.recordCount > 0 { try validation.validate(upTo: batch.next) }
                var number = 0
                while number < batch.recordCount {
                    // The records the fast path made whole: added at once.
                    if let ready = flatRecords?.readyRecords(from: number, to: batch.recordCount), !ready.isEmpty {
                        assembler.append(ready: ready)
                        number += ready.count
                        continue
                    }
                    defer { number += 1 }
                    guard let (record, content) = flatRecords?.record(number) else { break }
                    // One key whose bytes are canonical in the file, no sections:
                    // the usual case, added without going through the captures.
                    if sectionSlot == nil, keySlots.count == 1,
                        let key = flatRecords?.canonicalRange(keySlots[0], ofRecord: number)
                    {
                        assembler.append(
                            start: record.start, end: record.end, key: .source(start: key.lowerBound, end: key.upperBound),
                            content: content, section: section ?? 0)
                        continue
                    }
                    try add(record, content: content, captures: .flat(record: number), section: section)
                }
                if batch.hasNewShape {
                    flatRecords?.forEachName(of: bytes) { scanner.schema.add($0, isEscaped: false) }
                }
                index = batch.next
                // Another batch when this one only ran out of room.
                guard batch.stop == .atRecord, batch.recordCount > 0, index < limit else { return batch.stop }
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

        /// Where the captured values of a record are.
        private enum Captures {
            /// In ``JSONScanner/captures``.
            case scanner
            /// In the fast path's last batch, for its record `record`.
            case flat(record: Int)
        }

        /// Adds a scanned record: its section and key.
        private mutating func add(
            _ record: ValueDigest, content: ContentHash, captures: Captures, section fixedSection: Int?
        ) throws(ListFormatError) {
            var section = fixedSection ?? 0
            if let sectionSlot {
                let value = try captured(sectionSlot, name: options.sectionBy ?? "", record: record, from: captures)
                canonical.truncate(to: 0)
                scanner.appendCanonical(value, to: &canonical)
                let bytes = scanner.lexer.buffer(value.start, value.end)
                var newModel: SectionModel?
                section = assembler.section(forCanonical: canonical.bytes()) {
                    let model = JSONValueDecoder.value(of: bytes)
                    newModel = SectionModel(value: model)
                    return model
                }.index
                if let newModel {
                    let position = scanner.lexer.position(of: value.start)
                    if let first = sectionNames[newModel.name] {
                        throw .sectionNameCollision(newModel.name, at: position, first: first)
                    }
                    sectionNames[newModel.name] = position
                }
            }
            switch keySlots.count {
            case 0:
                assembler.append(start: record.start, end: record.end, key: .content, content: content, section: section)
            case 1:
                let value = try captured(keySlots[0], name: options.key[0], record: record, from: captures)
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
                    let value = try captured(slot, name: options.key[part], record: record, from: captures)
                    let prefix = KeyCanonicalForm.beginField(in: &canonical)
                    scanner.appendCanonical(value, to: &canonical)
                    KeyCanonicalForm.endField(startedAt: prefix, in: &canonical)
                }
                assembler.append(
                    start: record.start, end: record.end, key: .bytes(canonical.bytes()), content: content, section: section)
            }
        }

        private func captured(
            _ slot: Int, name: String, record: ValueDigest, from captures: Captures
        ) throws(ListFormatError) -> ValueDigest {
            let value: ValueDigest
            switch captures {
            case .scanner: value = scanner.captures[slot]
            case .flat(let number): value = flatRecords?.captured(slot, ofRecord: number) ?? .absent
            }
            guard !value.isAbsent else { throw .missingField(name, at: scanner.lexer.position(of: record.start)) }
            return value
        }
    }
}

extension JSONReader.ReadState {
    /// Starts a chunk with fresh scanners: its schema, record shapes and sections owe nothing to
    /// the chunks before it (whether two sections' names collide is checked over the whole list).
    mutating func startChunk(base: UnsafePointer<UInt8>, count: Int, fields: JSONFieldTrie, maxDepth: Int) {
        scanner = JSONScanner(base: base, count: count, fields: fields, maxDepth: maxDepth)
        flatRecords = JSONFlatRecordScanner(fields: fields)
        sectionNames = [:]
    }

    /// Reads the records of the top-level array from `index` (a record's start) up to the first
    /// record that starts at or after `limit` (`false`) or through the array's `]` (`true`), for
    /// ``JSONReader/readArrayChunks(_:storage:from:to:chunkSize:)``.
    mutating func readArrayRecords(from index: inout Int, until limit: Int) throws(ListFormatError) -> Bool {
        try readRecords(from: &index, until: limit, section: nil)
    }

    /// Reads the lines from `index` (a line start) up to the first line that starts at or after
    /// `limit`, for ``JSONReader/readLineChunks(_:storage:from:chunkSize:)``.
    /// Stops where a line starts: a record's line is read to its end, even past `limit`.
    mutating func readChunkLines(from index: inout Int, until limit: Int, blankLines: inout Int)
        throws(ListFormatError)
    {
        let start = index
        try readLines(from: &index, until: limit, blankLines: &blankLines)
        while index < bytes.count, index > start, bytes[index - 1] != ASCII.lineFeed {
            switch bytes[index] {
            case ASCII.space, ASCII.tab, ASCII.carriageReturn:
                index += 1
            case ASCII.lineFeed:
                // The line was blank when nothing but white space comes before it (it started
                // in this chunk, which starts where a line starts).
                var lineStart = index
                while lineStart > start, bytes[lineStart - 1] != ASCII.lineFeed { lineStart -= 1 }
                let isBlank = bytes[lineStart..<index].allSatisfy {
                    $0 == ASCII.space || $0 == ASCII.tab || $0 == ASCII.carriageReturn
                }
                if isBlank { blankLines += 1 }
                index += 1
                return
            default:
                // Not a line's end after a record: the whole read says what is wrong.
                throw .trailingContent(at: scanner.lexer.position(of: index))
            }
        }
    }

    /// Reads one chunk of a JSON object of arrays from `index`, at the place `place` says, up to
    /// the first place at or after `limit` where a record or a member's name starts (`false`,
    /// `index` and `place` there) or through the object's `}` and the white space after it
    /// (`true`), for ``JSONReader/readObjectChunks(_:storage:from:at:to:at:chunkSize:)``. The
    /// members whose names it reads go into `extent`.
    mutating func readObjectChunk(
        from index: inout Int, at place: inout ChunkedRegion.Boundary, until limit: Int, into extent: inout ChunkedRegion.Extent
    ) throws(ListFormatError) -> Bool {
        let chunkStart = index
        while true {
            switch place {
            case .member:
                guard index < limit || index == chunkStart else { return false }
                guard scanner.lexer.byte(at: index) == ASCII.quote else {
                    throw scanner.lexer.unexpected(at: index, expected: "a section name")
                }
                let name = try scanner.scanName(at: &index)
                let text = scanner.text(of: name)
                canonical.truncate(to: 0)
                scanner.appendCanonical(name, to: &canonical)
                extent.sections.append(
                    ChunkedRegion.Section(canonical: Array(canonical.bytes()), model: SectionModel(value: .string(text))))
                extent.sectionStarts.append(assembler.recordCount)
                scanner.lexer.skipWhitespace(&index)
                guard scanner.lexer.byte(at: index) == ASCII.colon else {
                    throw scanner.lexer.unexpected(at: index, expected: "':'")
                }
                index += 1
                scanner.lexer.skipWhitespace(&index)
                guard scanner.lexer.byte(at: index) == ASCII.openBracket else {
                    guard index < scanner.lexer.count else { throw scanner.lexer.unexpected(at: index, expected: "'['") }
                    throw .sectionNotArray(text, at: scanner.lexer.position(of: index))
                }
                index += 1
                if scanner.lexer.moveToFirstItem(&index, closing: ASCII.closeBracket) {
                    // The array's first record is this chunk's: no chunk starts right after a `[`,
                    // where the next version may have a `]` (a chunk starts after a comma, where
                    // a record must follow).
                    place = .record
                    guard try readRecords(from: &index, until: max(limit, index + 1), section: nil) else { return false }
                }
            case .record:
                guard try readRecords(from: &index, until: limit, section: nil) else { return false }
            }
            // After a member's array: another member, or the object's end.
            guard try scanner.lexer.moveToNextItem(&index, closing: ASCII.closeBrace) else {
                scanner.lexer.skipWhitespace(&index)
                return true
            }
            place = .member
        }
    }
}
