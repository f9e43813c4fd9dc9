import ListDiff
import ListFormats

/// What every fuzz input goes through: the first byte chooses the read
/// options, the rest is the file. A reader may refuse the file — with a
/// positioned error — but must never crash, and a list it accepts must
/// decode, hold together and survive a write and a read unchanged.
enum ReaderCheck {
    /// Reads `input` with options chosen by its first byte from `formats`,
    /// and checks what comes out. Traps (which libFuzzer reports as a crash,
    /// with the input) when a check fails.
    static func run(_ input: UnsafeBufferPointer<UInt8>, formats: [ListFormat]) {
        guard let selector = input.first else { return }
        let bytes = Array(input.dropFirst())
        let options = ReadOptions(
            format: formats[Int(selector & 0x07) % formats.count],
            key: selector & 0x08 != 0 ? ["id"] : [],
            sectionBy: selector & 0x10 != 0 ? "s" : nil,
            ignore: selector & 0x20 != 0 ? ["x"] : [],
            raggedRows: [.error, .pad, .truncate, .error][Int(selector >> 6)],
            maxNestingDepth: 64
        )
        let list: ParsedList
        do {
            list = try ListReader(options: options).read(bytes: bytes)
        } catch {
            check(error, in: bytes)
            return
        }
        checkStructure(of: list)
        checkRoundTrip(of: list, options: options)
    }

    /// Traps with `message` on standard error (precondition messages are
    /// compiled out of optimized builds).
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        fatalError(message())
    }

    /// An error about the file's content points inside the file.
    private static func check(_ error: ListFormatError, in bytes: [UInt8]) {
        guard let position = error.position else { return }
        require(
            position.byteOffset >= 0 && position.byteOffset <= bytes.count && position.line >= 1 && position.column >= 1,
            "error \(error) points outside the \(bytes.count)-byte input")
        _ = error.description
    }

    /// Counts agree, every record decodes, identities hash as they compare,
    /// and diffing the list against itself finds nothing.
    private static func checkStructure(of list: ParsedList) {
        let records = list.records
        require(records.count == list.report.recordCount, "report counts \(list.report.recordCount), list has \(records.count)")
        if list.isSectioned {
            require(list.sections.count == list.report.sectionCount, "report counts \(list.report.sectionCount) sections")
        }
        for record in records {
            require(
                record.byteOffset >= 0 && record.byteRange.upperBound <= list.bytes.count,
                "record at \(record.byteOffset) runs past the end of the file")
            _ = list.value(of: record)
            _ = record.differenceIdentifier.description
        }
        let changeset = StagedChangeset(source: list.sections, target: list.sections)
        require(changeset.isEmpty, "a list differs from itself")
    }

    /// `read(write(x)) == x`: the list written in its own format and read
    /// with the same options has the same values. JSON section names are
    /// text once written, so sections compare by name; ignored fields are
    /// not part of the list, so they are not written and none is ignored on
    /// the way back.
    private static func checkRoundTrip(of list: ParsedList, options: ReadOptions) {
        let written = ListWriter(format: list.format).write(list)
        var rereadOptions = options
        rereadOptions.ignore = []
        if case .json = list.format, list.isSectioned {
            rereadOptions.sectionBy = nil  // An object of arrays is sectioned by its member names.
        }
        let reread: ParsedList
        do {
            reread = try ListReader(options: rereadOptions).read(bytes: written)
        } catch {
            fatalError("the writer's output does not read back: \(error)\n\(String(decoding: written, as: UTF8.self))")
        }
        require(
            normalized(reread.document) == normalized(list.document),
            "round trip changed the list:\n\(String(decoding: written, as: UTF8.self))")
    }

    private static func normalized(_ document: ListDocument) -> ListDocument {
        guard case .sections(let sections) = document else { return document }
        return .sections(sections.map { ListDocument.Section(value: .string($0.value.text), records: $0.records) })
    }
}
