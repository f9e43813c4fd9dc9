import ListFormats
import PropertyBased
import Testing

@Suite struct ListStreamWriterTests {
    /// A list written record by record, in pieces cut anywhere (sections continued across
    /// pieces, as snapshot chunks continue them), is byte for byte what ``ListWriter`` writes for
    /// the whole list, in every format and line ending.
    @Test func streamedOutputEqualsTheWholeListWriters() async {
        let sections = Generators.record.array(of: 0...6).array(of: 0...3)
        await propertyCheck(count: 300, input: sections, Gen.bool, Gen.int(in: 1...4)) { sections, sectioned, piece in
            let document: ListDocument =
                sectioned
                ? .sections(sections.enumerated().map { index, records in .init(value: .string("s\(index)"), records: records) })
                : .records(sections.flatMap { $0 })
            let formats: [ListFormat] = [.csv(delimiter: .comma), .csv(delimiter: .tab), .json, .ndjson]
            for format in formats {
                for lineEnding in [ListWriter.LineEnding.lf, .crlf] {
                    let whole = ListWriter(format: format, lineEnding: lineEnding)
                    let columns: [String] = if case .csv = format { document.memberNames } else { [] }
                    var writer = ListStreamWriter(
                        format: format, columns: columns, sectioned: sectioned, sectionColumn: whole.addedSectionColumn(for: document),
                        lineEnding: lineEnding)
                    var streamed = writer.begin()
                    func pieces(_ records: [ListValue]) {
                        var start = 0
                        while start < records.count {
                            let end = min(records.count, start + piece)
                            streamed += writer.append(records[start..<end])
                            start = end
                        }
                    }
                    switch document {
                    case .records(let records):
                        pieces(records)
                    case .sections(let sections):
                        for section in sections {
                            streamed += writer.beginSection(section.value)
                            pieces(section.records)
                        }
                    }
                    streamed += writer.finish()
                    #expect(streamed == whole.write(document), "\(format) \(lineEnding) sectioned: \(sectioned)")
                }
            }
        }
    }

    /// A header whose first name starts with U+FEFF is quoted once, at the very start of the
    /// file, also when the header is written in a call of its own.
    @Test func aByteOrderMarkIsQuotedOnlyAtTheStartOfTheFile() {
        var writer = ListStreamWriter(format: .csv(delimiter: .comma), columns: ["\u{FEFF}id"], sectioned: false)
        let header = writer.begin()
        let rows = writer.append([ListValue.object([ListValue.Member(name: "\u{FEFF}id", value: .string("\u{FEFF}x"))])])
        #expect(String(decoding: header + rows + writer.finish(), as: UTF8.self) == "\"\u{FEFF}id\"\n\u{FEFF}x\n")
    }
}
