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

    /// Reads the bytes of `bytes`, which `buffer` points to; `report` has
    /// what ``ListReader`` found (the byte-order mark), `validation` checks
    /// UTF-8 just ahead of the records.
    func read(
        _ buffer: UnsafeBufferPointer<UInt8>, keeping bytes: [UInt8], report: ReadReport,
        validation: inout UTF8Validation
    ) throws(ListFormatError) -> ParsedList {
        var report = report

        var fields = JSONFieldTrie()
        var keySlots: [Int] = []
        var keyPaths: [FieldPath] = []
        for name in options.key {
            let path = try FieldPath(parsing: name)
            keyPaths.append(path)
            keySlots.append(fields.addCapture(path))
        }
        let sectionSlot = try options.sectionBy.map { name throws(ListFormatError) in
            fields.addCapture(try FieldPath(parsing: name))
        }
        var ignorePaths: [FieldPath] = []
        for name in options.ignore {
            let path = try FieldPath(parsing: name)
            ignorePaths.append(path)
            fields.addIgnored(path)
        }

        let storage = ListStorage(source: bytes, encoding: .json(key: keyPaths, ignore: ignorePaths))
        let assembler = ListAssembler(
            storage: storage, source: buffer, isSectioned: options.sectionBy != nil,
            estimatedCount: ListAssembler.estimatedCount(of: (ASCII.lineFeed, ASCII.openBrace), in: buffer, from: 0))
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
            bytes: buffer, storage: storage, fields: fields, assembler: assembler, validation: validation,
            keySlots: keySlots, sectionSlot: sectionSlot, options: options)
        var index = report.hadByteOrderMark ? 3 : 0
        switch options.format {
        case .ndjson:
            try state.readLines(from: &index, blankLines: &report.blankLineCount)
        default:
            try state.readDocument(from: &index)
        }
        try state.validation.validateAll()
        validation = state.validation
        // Ignored top-level members are not published, so they are no columns.
        let ignoredNames = Set(ignorePaths.compactMap(\.topLevelName))
        return state.assembler.finish(
            schema: ListSchema(columns: state.scanner.schema.columns.filter { !ignoredNames.contains($0) }),
            format: options.format, report: report)
    }
}
