import Foundation
import ListFormats
import PropertyBased
import Testing

/// The incremental reader reads every version of a file exactly as one pass of ``ListReader``
/// does — records (offsets, identities, content), sections, schema, report, or the same
/// positioned error — whatever the edits between versions, and re-parses only around what
/// changed: in every shape, with `section_by` or not, and JSON objects of arrays.
@Suite struct IncrementalListReaderTests {
    /// A file as rows (each with its line ending) after a header, and the options to read it.
    struct Scenario: Sendable, CustomStringConvertible {
        var format: ListFormat
        var key: [String]
        var sectionBy: String?
        var ignore: [String]
        var raggedRows: RaggedRowPolicy
        var chunkSize: Int
        /// From how many bytes a region is read in two halves at once (small: most reads split).
        var splitSize: Int
        /// The versions of the file, in order.
        var versions: [[UInt8]]

        var description: String {
            "Scenario(format: \(format), key: \(key), sectionBy: \(sectionBy ?? "-"), ignore: \(ignore), ragged: \(raggedRows), chunkSize: \(chunkSize), splitSize: \(splitSize), "
                + "versions: \(versions.map { String(decoding: $0, as: UTF8.self) }))"
        }

        var options: ReadOptions {
            ReadOptions(format: format, key: key, sectionBy: sectionBy, ignore: ignore, raggedRows: raggedRows)
        }
    }

    /// A CSV field, quoted when it must be (or sometimes when it need not be).
    static func csvField(_ rng: inout any SeededRandomNumberGenerator, delimiter: Character) -> String {
        let value = Generators.field(&rng)
        let needsQuotes = value.contains(where: { $0 == delimiter || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
        guard needsQuotes || Int.random(in: 0..<8, using: &rng) == 0 else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The rows of one version, and its header.
    struct Draft {
        var byteOrderMark: Bool
        var header: String
        var rows: [String]
        /// For a JSON array: what separates the rows (a comma), and what closes the array.
        var separator = ""
        var trailer = ""
        /// For a JSON object of arrays: what ends one member's array before the next member's name.
        /// A row that starts with ``Draft/memberMark`` is the name of the member whose array follows.
        var memberSeparator: String?

        static let memberMark: Character = "\u{1}"

        var bytes: [UInt8] {
            var text = header
            if let memberSeparator {
                // The first member's name, then each array's records, commas between them.
                text += #""m0": ["#
                var arrayIsEmpty = true
                for row in rows {
                    if row.first == Self.memberMark {
                        text += memberSeparator + "\"" + row.dropFirst() + "\": ["
                        arrayIsEmpty = true
                    } else {
                        text += (arrayIsEmpty ? "" : ",") + row
                        arrayIsEmpty = false
                    }
                }
                text += "]"
            } else {
                text += rows.joined(separator: separator)
            }
            return (byteOrderMark ? [0xEF, 0xBB, 0xBF] : []) + Array((text + trailer).utf8)
        }
    }

    static let scenario = Generator<Scenario, Shrink.None<Scenario>> { rng in
        // A JSON object of arrays (shape 4), or lists sectioned by `c1` (about a third of the others).
        let shape = Int.random(in: 0..<5, using: &rng)
        let formatNumber = min(shape, 3)
        let format: ListFormat = [.csv(delimiter: .comma), .csv(delimiter: .tab), .ndjson, .json][formatNumber]
        let isObject = shape == 4
        let delimiter: Character = formatNumber == 1 ? "\t" : ","
        let lineEnding = Bool.random(using: &rng) ? "\r\n" : "\n"
        var columnCount = Int.random(in: 1...4, using: &rng)
        let sectionBy: String? = !isObject && Int.random(in: 0..<3, using: &rng) == 0 ? "c1" : nil
        if sectionBy != nil { columnCount = max(columnCount, 2) }
        let columns = (0..<columnCount).map { "c\($0)" }
        let keyed = Bool.random(using: &rng)
        var key: [String] = []
        if keyed { key = columnCount > 1 && Bool.random(using: &rng) ? ["c0", "c1"] : ["c0"] }
        let ignore = columnCount > 1 && Int.random(in: 0..<4, using: &rng) == 0 ? ["c\(columnCount - 1)"] : []
        let raggedRows = [RaggedRowPolicy.error, .pad, .truncate].randomElement(using: &rng) ?? .error

        func csvRow(_ rng: inout any SeededRandomNumberGenerator) -> String {
            var count = columnCount
            if raggedRows != .error, Int.random(in: 0..<12, using: &rng) == 0 { count += Int.random(in: -1...1, using: &rng) }
            return (0..<max(count, 1)).map { column in
                // Few sections, one of them quoted with a line break in it.
                guard column == 1, sectionBy != nil else { return csvField(&rng, delimiter: delimiter) }
                return ["a", "b", "\"b\"", "\"x\ny\""].randomElement(using: &rng) ?? "a"
            }.joined(separator: String(delimiter)) + lineEnding
        }
        func jsonRow(_ rng: inout any SeededRandomNumberGenerator) -> String {
            var members: [ListValue.Member] = []
            for column in columns where column == "c0" || (column == "c1" && sectionBy != nil) || Int.random(in: 0..<4, using: &rng) > 0 {
                // Few sections; the string "1" and the number 1 have one name, which is an error.
                let sections: [ListValue] = [.string("a"), .string("b"), .string("x\ny"), .number("2"), .string("1"), .number("1")]
                let value: ListValue =
                    column == "c0" ? .number(String(Int.random(in: 0..<40, using: &rng)))
                    : column == "c1" && sectionBy != nil
                        ? sections[Int.random(in: 0..<(Int.random(in: 0..<8, using: &rng) == 0 ? 6 : 4), using: &rng)]
                    : Generators.value(&rng, depth: 2)
                members.append(ListValue.Member(name: column, value: value))
            }
            if Int.random(in: 0..<10, using: &rng) == 0 { members.shuffle(using: &rng) }
            let line = String(decoding: ListWriter(format: .ndjson).write(.records([.object(members)])), as: UTF8.self)
            return line.hasSuffix("\n") ? String(line.dropLast()) + lineEnding : line + lineEnding
        }
        func row(_ rng: inout any SeededRandomNumberGenerator) -> String {
            if isObject, Int.random(in: 0..<6, using: &rng) == 0 {
                // A member's name (sometimes one met before: a repeated member is an error).
                return String(Draft.memberMark) + "m\(Int.random(in: 0..<60, using: &rng))"
            }
            if format == .json {
                // A record with the white space around it that JSON allows.
                let line = jsonRow(&rng)
                let space = ["", "\n", lineEnding + "  ", " "].randomElement(using: &rng) ?? ""
                return space + line.dropLast(lineEnding.count)
            }
            switch Int.random(in: 0..<20, using: &rng) {
            case 0: return lineEnding  // a blank line
            case 1 where format == .ndjson: return "  " + lineEnding
            default: return format == .ndjson ? jsonRow(&rng) : csvRow(&rng)
            }
        }
        func header(_ names: [String]) -> String {
            switch format {
            case .ndjson: ""
            case .json where isObject: names.count > columns.count ? "{ " : "{" + lineEnding
            case .json: names.count > columns.count ? "[ " : "[" + lineEnding
            default: names.joined(separator: String(delimiter)) + lineEnding
            }
        }

        var draft = Draft(
            byteOrderMark: Int.random(in: 0..<6, using: &rng) == 0, header: header(columns),
            rows: (0..<Int.random(in: 0...40, using: &rng)).map { _ in row(&rng) })
        if format == .json {
            draft.separator = ","
            draft.trailer = lineEnding + (isObject ? "}" : "]") + (Bool.random(using: &rng) ? lineEnding : "")
            if isObject { draft.memberSeparator = "]," + lineEnding }
        }
        var versions = [draft.bytes]
        for _ in 0..<Int.random(in: 1...8, using: &rng) {
            var bytes: [UInt8]?
            let rowCount = draft.rows.count
            let place = Int.random(in: 0...rowCount, using: &rng)
            switch Int.random(in: 0..<13, using: &rng) {
            case 0, 1:  // rows changed in place
                for _ in 0..<Int.random(in: 1...2, using: &rng) where rowCount > 0 {
                    draft.rows[Int.random(in: 0..<rowCount, using: &rng)] = row(&rng)
                }
            case 2:  // rows inserted
                draft.rows.insert(contentsOf: (0..<Int.random(in: 1...5, using: &rng)).map { _ in row(&rng) }, at: place)
            case 3:  // rows deleted
                draft.rows.removeSubrange(place..<min(rowCount, place + Int.random(in: 1...5, using: &rng)))
            case 4:  // a row moved
                if rowCount > 1 {
                    let moved = draft.rows.remove(at: Int.random(in: 0..<rowCount, using: &rng))
                    draft.rows.insert(moved, at: Int.random(in: 0..<rowCount, using: &rng))
                }
            case 5, 6:  // rows appended
                draft.rows += (0..<Int.random(in: 1...20, using: &rng)).map { _ in row(&rng) }
            case 7:  // rows truncated
                draft.rows.removeSubrange(place...)
            case 8:  // the header changed
                let names = Bool.random(using: &rng) ? columns.reversed() : columns + ["extra"]
                draft.header = header(Array(names))
                if format == .ndjson { draft.byteOrderMark.toggle() }
                if format == .json, Bool.random(using: &rng) { draft.trailer += " " }
            case 9:  // the byte-order mark added or removed
                draft.byteOrderMark.toggle()
            case 10:  // bytes cut at any place: the last line unfinished, or a quote left open
                let whole = draft.bytes
                bytes = Array(whole.prefix(Int.random(in: 0...whole.count, using: &rng)))
            case 11:  // an awkward character inserted at any place
                var whole = draft.bytes
                let character = Generators.awkwardCharacters.randomElement(using: &rng) ?? "\""
                whole.insert(contentsOf: Array(String(character).utf8), at: Int.random(in: 0...whole.count, using: &rng))
                bytes = whole
            default:  // the same bytes again
                break
            }
            versions.append(bytes ?? draft.bytes)
        }
        return Scenario(
            format: format, key: key, sectionBy: sectionBy, ignore: ignore, raggedRows: raggedRows,
            chunkSize: Int.random(in: 1...96, using: &rng),
            splitSize: Bool.random(using: &rng) ? Int.random(in: 1...400, using: &rng) : IncrementalListReader.defaultSplitSize,
            versions: versions)
    }

    /// What a read gave, in a form that compares every part of it.
    struct Outcome: Equatable, CustomStringConvertible {
        var records: [[UInt64]] = []
        /// Each section's name and number of records; nil for a linear list.
        var sections: [String]?
        var schema: [String] = []
        var report = ReadReport()
        var error: ListFormatError?

        init(_ read: () throws(ListFormatError) -> ParsedList) {
            do {
                let list = try read()
                sections = list.isSectioned ? list.sections.map { "\($0.model.value): \($0.elements.count)" } : nil
                records = list.records.map { record in
                    [
                        UInt64(record.byteOffset), UInt64(record.byteRange.count), record.differenceIdentifier.hash.low,
                        record.differenceIdentifier.hash.high, record.contentHash.low, record.contentHash.high,
                    ]
                }
                schema = list.schema.columns
                report = list.report
            } catch {
                self.error = error
            }
        }

        var description: String { "records: \(records), sections: \(sections ?? []), schema: \(schema), report: \(report), error: \(String(describing: error))" }
    }

    @Test func everyVersionReadsAsOnePassDoes() async {
        await propertyCheck(count: 1500, input: Self.scenario) { scenario in
            var incremental = IncrementalListReader(
                options: scenario.options, chunkSize: scenario.chunkSize, splitSize: scenario.splitSize)
            // Each version's records written into the storage of the one two reads back, as in the daemon.
            let pool = ListBufferPool()
            let full = ListReader(options: scenario.options)
            var previous: (bytes: [UInt8], didRead: Bool)?
            for (number, bytes) in scenario.versions.enumerated() {
                let expected = Outcome { () throws(ListFormatError) in try full.read(bytes: bytes) }
                let actual = Outcome { () throws(ListFormatError) in try incremental.read(bytes: bytes, recycling: pool) }
                let version = "version \(number): \(String(decoding: bytes, as: UTF8.self).debugDescription)"
                if let previous, previous.didRead, previous.bytes == bytes, !expected.records.isEmpty {
                    // The same bytes again keep the chunks, whatever the shape (files without
                    // records — empty, an empty JSON array — are read whole).
                    #expect(incremental.lastRead.wasIncremental, "\(version)")
                }
                previous = (bytes, expected.error == nil)
                #expect(actual.error == expected.error, "\(version)")
                #expect(actual.report == expected.report, "\(version)")
                #expect(actual.schema == expected.schema, "\(version)")
                #expect(actual.records == expected.records, "\(version)")
                #expect(actual.sections == expected.sections, "\(version)")
            }
        }
    }

    /// A file of `rows` CSV rows with quoted fields that hold line breaks.
    private static func csvFile(rows: Range<Int>) -> String {
        var text = "id,name,note\n"
        for row in rows {
            text += row % 5 == 0 ? "\(row),name \(row),\"two\nlines, \"\"quoted\"\"\"\n" : "\(row),name \(row),plain\n"
        }
        return text
    }

    @Test func aOneRowEditParsesAboutAChunkAndAnAppendOnlyTheTail() throws {
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"])
        var reader = IncrementalListReader(options: options, chunkSize: 1024)
        let original = Array(Self.csvFile(rows: 0..<5000).utf8)
        let first = try reader.read(bytes: original)
        #expect(!reader.lastRead.wasIncremental)
        #expect(reader.lastRead.parsedByteCount == original.count - 13)
        #expect(first.records.count == 5000)

        // One row changed in the middle, one byte longer.
        let edited = Array(Self.csvFile(rows: 0..<5000).replacingOccurrences(of: "\n2500,name 2500,", with: "\n2500,name 25000,").utf8)
        let second = try reader.read(bytes: edited)
        #expect(reader.lastRead.wasIncremental)
        #expect(reader.lastRead.parsedByteCount <= 2 * 1024 + 200)
        #expect(reader.lastRead.keptChunkCount == reader.lastRead.chunkCount - 1)
        #expect(Outcome { () throws(ListFormatError) in second } == Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: edited) })

        // 1,000 rows appended: only they are read.
        let tail = Array(Self.csvFile(rows: 5000..<6000).utf8.dropFirst(13))
        let appended = edited + tail
        let third = try reader.read(bytes: appended)
        #expect(reader.lastRead.parsedByteCount == tail.count)
        #expect(third.records.count == 6000)
        #expect(Outcome { () throws(ListFormatError) in third } == Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: appended) })
    }

    @Test func chunksThatRepeatAreKeptOnceAtTheirPlace() throws {
        // Identical chunks match at the start and at the end at once: the kept chunks must not overlap.
        let options = ReadOptions(format: .csv(delimiter: .comma))
        let row = "1,same\n"
        for (before, after) in [(100, 40), (40, 100), (100, 99), (99, 100)] {
            var reader = IncrementalListReader(options: options, chunkSize: 3)
            _ = try reader.read(bytes: Array(("id,name\n" + String(repeating: row, count: before)).utf8))
            let bytes = Array(("id,name\n" + String(repeating: row, count: after)).utf8)
            let list = try reader.read(bytes: bytes)
            #expect(reader.lastRead.wasIncremental)
            #expect(list.records.map(\.byteOffset) == (0..<after).map { 8 + $0 * row.utf8.count })
            #expect(list.report.duplicateCount == after - 1)
        }
    }

    /// A list without repeated keys, then edits that keep it so (checked in the changed records
    /// only) or repeat a key of a kept record at the start, at the end, or of another changed
    /// record (counted over every record): each read as one pass reads it.
    @Test func duplicatesAreCheckedInTheChangedRecordsWhenThePreviousVersionHadNone() throws {
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"])
        let text = Self.csvFile(rows: 0..<3000)
        let edits: [(String, expectedDuplicates: Int, checkedInChangedRecordsOnly: Bool)] = [
            (text.replacingOccurrences(of: "\n1500,name 1500,", with: "\n1500,renamed,"), 0, true),
            (text.replacingOccurrences(of: "\n1500,name 1500,", with: "\n3,name 1500,"), 1, false),
            (text.replacingOccurrences(of: "\n1500,name 1500,", with: "\n2998,name 1500,"), 1, false),
            (text.replacingOccurrences(of: "\n1500,name 1500,", with: "\n1501,name 1500,"), 1, false),
            (text.replacingOccurrences(of: "\n1501,name 1501,plain\n", with: "\n1501,name 1501,plain\n9000,new,x\n9000,again,y\n"), 1, false),
            (text.replacingOccurrences(of: "\n1501,name 1501,plain\n", with: "\n"), 0, true),
            (text + "3000,appended,z\n", 0, true),
        ]
        for (edited, expectedDuplicates, checkedInChangedRecordsOnly) in edits {
            #expect(edited != text)
            var reader = IncrementalListReader(options: options, chunkSize: 1024)
            _ = try reader.read(bytes: Array(text.utf8))
            let bytes = Array(edited.utf8)
            let list = try reader.read(bytes: bytes)
            #expect(reader.lastRead.wasIncremental)
            #expect(reader.lastRead.checkedDuplicatesInChangedRecordsOnly == checkedInChangedRecordsOnly)
            #expect(list.report.duplicateCount == expectedDuplicates)
            #expect(Outcome { () throws(ListFormatError) in list } == Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: bytes) })
            // Back to the file without duplicates: counted again, as the previous version had some.
            _ = try reader.read(bytes: Array(text.utf8))
            #expect(reader.lastRead.checkedDuplicatesInChangedRecordsOnly == (expectedDuplicates == 0))
        }
    }

    /// Records read again with the identities of those they replace (edited in place, deleted,
    /// reordered) are checked for repeats without reading a kept record; a new identity (a key
    /// changed to a new one, an appended row) is checked against every kept one. Each read as
    /// one pass reads it.
    @Test func aRecordEditedInPlaceIsCheckedForRepeatsWithoutReadingTheKeptRecords() throws {
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"])
        let text = Self.csvFile(rows: 0..<3000)
        let edits: [(String, readsKeptRecords: Bool)] = [
            (text.replacingOccurrences(of: "\n1500,name 1500,", with: "\n1500,renamed,"), false),
            (text.replacingOccurrences(of: "\n1501,name 1501,plain\n", with: "\n"), false),
            (text.replacingOccurrences(of: "\n1501,name 1501,plain\n1502,name 1502,plain\n", with: "\n1502,name 1502,plain\n1501,name 1501,plain\n"), false),
            (text.replacingOccurrences(of: "\n1500,name 1500,", with: "\n9000,name 1500,"), true),
            (text + "3000,appended,z\n", true),
        ]
        for (edited, readsKeptRecords) in edits {
            #expect(edited != text)
            var reader = IncrementalListReader(options: options, chunkSize: 1024)
            _ = try reader.read(bytes: Array(text.utf8))
            let bytes = Array(edited.utf8)
            let list = try reader.read(bytes: bytes)
            let read = reader.lastRead
            #expect(read.wasIncremental)
            #expect(read.checkedDuplicatesInChangedRecordsOnly)
            #expect(read.keptRecordsReadForDuplicates == (readsKeptRecords ? read.keptPrefixRecordCount + read.keptSuffixRecordCount : 0))
            #expect(read.keptPrefixRecordCount + read.keptSuffixRecordCount > 2500)
            #expect(list.report.duplicateCount == 0)
            #expect(Outcome { () throws(ListFormatError) in list } == Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: bytes) })
        }
    }

    /// A version read after another holds the previous version's records at both ends as runs of
    /// their storage (the suffix moved when the length changed), and only the records read again
    /// in new memory (issue 19): after edits in place (one count, one length), an append, each
    /// later version's new storage is the records of the chunk or two read again, and nothing is
    /// written into a retired version's array. Each version reads as one pass reads it.
    @Test func aVersionReadAfterAnotherHoldsOnlyTheRecordsReadAgainInNewMemory() throws {
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"])
        let pool = ListBufferPool()
        var reader = IncrementalListReader(options: options, chunkSize: 1024)
        var text = Self.csvFile(rows: 0..<5000)
        // The edit, and at most how many records the read may write.
        let edits: [(String, String, written: Int)] = [
            ("", "", 0),  // a first read: the array the reader wrote the records into is the list's
            ("\n1500,name 1500,", "\n1500,NAME 1500,", 200),
            ("\n3500,name 3500,", "\n3500,NAME 3500,", 200),
            ("\n201,name 201,", "\n201,NAME 201,", 200),
            ("\n4999,name 4999,plain\n", "\n4999,name 4999,plain\n5000,appended,z\n5001,appended,z\n", 200),
            ("\n2,name 2,", "\n2,NAME 2,", 200),
            ("\n4000,name 4000,", "\n4000,NAME 4000,", 200),
            ("\n2501,name 2501,", "\n2501,NAME 2501,", 200),
        ]
        var previous: ListRecords?
        for (number, (old, new, written)) in edits.enumerated() {
            if !old.isEmpty {
                #expect(text.contains(old))
                text = text.replacingOccurrences(of: old, with: new)
            }
            let bytes = Array(text.utf8)
            let list = try reader.read(bytes: bytes, recycling: pool)
            let records = try #require(list.linearRecords)
            #expect(reader.lastRead.writtenRecordCount <= written, "version \(number)")
            if let previous {
                // The storage not the previous version's: the records read again, and no more.
                func address(_ run: ListRecords.Run) -> UInt { run.storage.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
                let previousStorage = Set(previous.runs.map(address))
                let newStorage = Set(records.runs.map(address)).subtracting(previousStorage)
                let newRecords = records.runs.filter { newStorage.contains(address($0)) }.map(\.storage.count)
                #expect(newRecords.count <= 1 && newRecords.reduce(0, +) == reader.lastRead.writtenRecordCount, "version \(number)")
                #expect(records.runs.count > 1, "version \(number)")
                // The first version's array and the records read again since: nothing more.
                #expect(records.storageRecordCount <= 5_000 + 200 * number, "version \(number)")
            }
            #expect(Outcome { () throws(ListFormatError) in list } == Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: bytes) })
            #expect(pool.heldByteCount <= bytes.count, "the pool keeps no records of a linear list")
            previous = records
        }
    }

    @Test func aChangedHeaderReadsTheWholeFile() throws {
        var reader = IncrementalListReader(options: ReadOptions(format: .csv(delimiter: .comma)), chunkSize: 256)
        _ = try reader.read(bytes: Array(Self.csvFile(rows: 0..<200).utf8))
        let renamed = Array(Self.csvFile(rows: 0..<200).replacingOccurrences(of: "id,name,note", with: "id,name,remark").utf8)
        let list = try reader.read(bytes: renamed)
        #expect(!reader.lastRead.wasIncremental)
        #expect(list.schema.columns == ["id", "name", "remark"])
    }

    @Test func anErrorIsTheOnePassReadsAndTheNextReadStartsAfresh() throws {
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"])
        var reader = IncrementalListReader(options: options, chunkSize: 256)
        let text = Self.csvFile(rows: 0..<300)
        _ = try reader.read(bytes: Array(text.utf8))
        let broken = Array(text.replacingOccurrences(of: "\n151,name 151,plain\n", with: "\n151,name 151\n").utf8)
        let expected = try #require(readError(broken, csv, key: ["id"]))
        #expect(throws: expected) { try reader.read(bytes: broken) }
        _ = try reader.read(bytes: Array(text.utf8))
        #expect(!reader.lastRead.wasIncremental)
    }

    @Test func aLargeRegionIsReadInHalvesWithTheResultOfOnePass() throws {
        // Quoted fields with line breaks around the middle, where the halves meet, and a guess
        // that lands in a quote (a second read in order): each reads as one pass does.
        let text = Self.csvFile(rows: 0..<4000)
        let quoteOpenInTheMiddle =
            "id,name,note\n0,a,\"" + String(repeating: "x\n1,b,c\n", count: 2000) + "\"\n" + String(repeating: "2,d,e\n", count: 200)
        let options = ReadOptions(format: .csv(delimiter: .comma))
        let hasSecondCore = ProcessInfo.processInfo.activeProcessorCount > 1
        for (bytes, mustSplit) in [(Array(text.utf8), hasSecondCore), (Array(quoteOpenInTheMiddle.utf8), false)] {
            var reader = IncrementalListReader(options: options, chunkSize: 512, splitSize: 1024)
            let list = try reader.read(bytes: bytes)
            if mustSplit { #expect(reader.lastRead.wasSplit) }
            #expect(reader.lastRead.chunkCount > 1)
            #expect(Outcome { () throws(ListFormatError) in list } == Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: bytes) })
        }
    }

    @Test func ndjsonAndJSONArraysAreReadInHalvesToo() throws {
        let lines = (0..<4000).map { #"{"id":\#($0),"name":"n \#($0)","note":"a, b"}"# }
        let files: [(ListFormat, String)] = [
            (.ndjson, lines.joined(separator: "\n") + "\n"),
            (.json, "[\n" + lines.joined(separator: ",\n") + "\n]\n"),
        ]
        for (format, text) in files {
            let options = ReadOptions(format: format, key: ["id"])
            var reader = IncrementalListReader(options: options, chunkSize: 512, splitSize: 1024)
            let list = try reader.read(bytes: Array(text.utf8))
            if ProcessInfo.processInfo.activeProcessorCount > 1 { #expect(reader.lastRead.wasSplit, "\(format)") }
            #expect(Outcome { () throws(ListFormatError) in list } == Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: Array(text.utf8)) })
        }
    }

    @Test func aFirstReadInHalvesAppendsTheSecondHalfToTheFirstHalfsArray() throws {
        // Issue 19: the first half's array is sized for the whole region, so the join copies only
        // the second half's records into it — not both halves into a third array (a whole records
        // array more at the peak of a load). A first read on one thread copies none.
        let lines = (0..<4000).map { #"{"id":\#($0),"name":"n \#($0)","note":"a, b"}"# }
        let files: [(ListFormat, String)] = [
            (.csv(delimiter: .comma), Self.csvFile(rows: 0..<4000)),
            (.ndjson, lines.joined(separator: "\n") + "\n"),
            (.json, "[\n" + lines.joined(separator: ",\n") + "\n]\n"),
        ]
        for (format, text) in files {
            let options = ReadOptions(format: format, key: ["id"])
            let bytes = Array(text.utf8)
            for splitSize in [1024, IncrementalListReader.defaultSplitSize] {
                var reader = IncrementalListReader(options: options, chunkSize: 512, splitSize: splitSize)
                let list = try reader.read(bytes: bytes)
                let count = list.report.recordCount
                #expect(count == 4000, "\(format)")
                if reader.lastRead.wasSplit {
                    // The second half, from near the middle: between a quarter and three quarters.
                    #expect(reader.lastRead.writtenRecordCount > count / 4, "\(format)")
                    #expect(reader.lastRead.writtenRecordCount < count * 3 / 4, "\(format)")
                } else {
                    #expect(splitSize == IncrementalListReader.defaultSplitSize || ProcessInfo.processInfo.activeProcessorCount == 1)
                    #expect(reader.lastRead.writtenRecordCount == 0, "\(format)")
                }
                #expect(Outcome { () throws(ListFormatError) in list } == Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: bytes) })
            }
        }
    }

    /// The same rows as CSV, NDJSON and a JSON array, each with a `group` that sections them
    /// (the groups interleave: a section is no run of the file), some CSV notes quoted over two lines.
    private static func sectionedFiles(rows: Range<Int>, group: (Int) -> String) -> [(ListFormat, String)] {
        var csv = "id,group,note\n"
        var lines: [String] = []
        for row in rows {
            csv += row % 7 == 0 ? "\(row),\(group(row)),\"two\nlines\"\n" : "\(row),\(group(row)),plain\n"
            lines.append(#"{"id":\#(row),"group":"\#(group(row))","note":"n \#(row)"}"#)
        }
        return [
            (.csv(delimiter: .comma), csv), (.ndjson, lines.joined(separator: "\n") + "\n"),
            (.json, "[\n" + lines.joined(separator: ",\n") + "\n]\n"),
        ]
    }

    @Test func aSectionedListIsReadInChunksAndARecordThatChangesSectionMovesWithIt() throws {
        let groups = ["north", "south", "east"]
        let original = Self.sectionedFiles(rows: 0..<3000) { groups[$0 % 3] }
        // Row 1500 moves from `north` to a new section, `west`.
        let edited = Self.sectionedFiles(rows: 0..<3000) { $0 == 1500 ? "west" : groups[$0 % 3] }
        for ((format, before), (_, after)) in zip(original, edited) {
            let options = ReadOptions(format: format, key: ["id"], sectionBy: "group")
            var reader = IncrementalListReader(options: options, chunkSize: 1024)
            let first = try reader.read(bytes: Array(before.utf8))
            #expect(first.sections.map(\.model.name) == groups, "\(format)")
            #expect(reader.lastRead.chunkCount > 40, "\(format)")

            let second = try reader.read(bytes: Array(after.utf8))
            #expect(reader.lastRead.wasIncremental, "\(format)")
            #expect(reader.lastRead.parsedByteCount <= 2 * 1024 + 200, "\(format)")
            #expect(second.sections.map(\.model.name) == groups + ["west"], "\(format)")
            #expect(second.sections.map(\.elements.count) == [999, 1000, 1000, 1], "\(format)")
            let expected = Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: Array(after.utf8)) }
            #expect(Outcome { () throws(ListFormatError) in second } == expected, "\(format)")

            // And back: the section `west` is gone again.
            let third = try reader.read(bytes: Array(before.utf8))
            #expect(reader.lastRead.wasIncremental, "\(format)")
            #expect(third.sections.map(\.model.name) == groups, "\(format)")
            #expect(Outcome { () throws(ListFormatError) in third } == Outcome { () throws(ListFormatError) in first }, "\(format)")
        }
    }

    /// A JSON object of arrays: members `north`, `south`, `east` of `count` records each.
    private static func objectOfArrays(count: Int, names: [String] = ["north", "south", "east"], note: (Int) -> String) -> [UInt8] {
        let members = names.enumerated().map { member, name in
            let records = (member * count..<(member + 1) * count).map { #"  {"id":\#($0),"note":"\#(note($0))"}"# }
            return "\"\(name)\": [\n" + records.joined(separator: ",\n") + "\n]"
        }
        return Array(("{\n" + members.joined(separator: ",\n") + "\n}\n").utf8)
    }

    @Test func aJSONObjectOfArraysIsReadInChunksInsideEachMember() throws {
        let options = ReadOptions(format: .json, key: ["id"])
        var reader = IncrementalListReader(options: options, chunkSize: 1024)
        func expectOnePass(_ list: ParsedList, _ bytes: [UInt8]) {
            #expect(Outcome { () throws(ListFormatError) in list } == Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: bytes) })
        }
        let original = Self.objectOfArrays(count: 1000) { "n \($0)" }
        let first = try reader.read(bytes: original)
        #expect(reader.lastRead.chunkCount > 40)
        #expect(first.sections.map(\.model.name) == ["north", "south", "east"])
        expectOnePass(first, original)

        // One record of `south` changed: about a chunk read again.
        let edited = Self.objectOfArrays(count: 1000) { $0 == 1500 ? "changed" : "n \($0)" }
        let second = try reader.read(bytes: edited)
        #expect(reader.lastRead.wasIncremental)
        #expect(reader.lastRead.parsedByteCount <= 2 * 1024 + 200)
        #expect(second.sections.map(\.elements.count) == [1000, 1000, 1000])
        expectOnePass(second, edited)

        // A member renamed: its records are the renamed section's.
        let renamed = Self.objectOfArrays(count: 1000, names: ["north", "west", "east"]) { $0 == 1500 ? "changed" : "n \($0)" }
        let third = try reader.read(bytes: renamed)
        #expect(reader.lastRead.wasIncremental)
        #expect(third.sections.map(\.model.name) == ["north", "west", "east"])
        expectOnePass(third, renamed)

        // A repeated member name is the error one pass reports; then a read starts afresh.
        let repeated = Self.objectOfArrays(count: 1000, names: ["north", "east", "east"]) { $0 == 1500 ? "changed" : "n \($0)" }
        let error = try #require(Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: repeated) }.error)
        #expect(throws: error) { try reader.read(bytes: repeated) }
        expectOnePass(try reader.read(bytes: original), original)
        #expect(!reader.lastRead.wasIncremental)
    }
}
