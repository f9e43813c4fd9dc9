import Foundation
import ListFormats
import ListSyncTestSupport
import Testing

/// `ListReader.read(mappingFile:)` (what `listsync diff` reads with) reads the file from a
/// mapping of it rather than a copy, and must give exactly the list, or the error, that
/// `read(contentsOfFile:)` gives: every shape, both halves of a split read, and the errors.
@Suite struct MappedReadTests {
    private static func temporaryFile(_ bytes: [UInt8], extension fileExtension: String) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("listformats-mapped-\(UUID().uuidString).\(fileExtension)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Reads `bytes` from a file both ways and expects the same list, or the same error.
    private func expectSameRead(_ bytes: [UInt8], _ options: ReadOptions, extension fileExtension: String) throws {
        let path = try Self.temporaryFile(bytes, extension: fileExtension)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = ListReader(options: options)
        let copied: Result<ParsedList, ListFormatError> = Result { () throws(ListFormatError) in try reader.read(contentsOfFile: path) }
        let mapped: Result<ParsedList, ListFormatError> = Result { () throws(ListFormatError) in try reader.read(mappingFile: path) }
        switch (copied, mapped) {
        case (.success(let copied), .success(let mapped)):
            #expect(mapped.bytes == copied.bytes)
            #expect(mapped.bytes == bytes)
            #expect(mapped.records.map(\.contentHash) == copied.records.map(\.contentHash))
            #expect(mapped.records.map(\.byteOffset) == copied.records.map(\.byteOffset))
            #expect(mapped.records.map(\.differenceIdentifier) == copied.records.map(\.differenceIdentifier))
            #expect(mapped.sections.map(\.model) == copied.sections.map(\.model))
            #expect(mapped.report == copied.report)
            #expect(mapped.schema == copied.schema)
            #expect(mapped.warnings(keyed: true) == copied.warnings(keyed: true))
            // Values are decoded from the mapping after the read returned.
            #expect(mapped.values == copied.values)
            #expect(mapped.records.map { mapped.sourceBytes(of: $0) } == copied.records.map { copied.sourceBytes(of: $0) })
            if let last = copied.records.last {
                #expect(mapped.position(ofByteOffset: last.byteOffset) == copied.position(ofByteOffset: last.byteOffset))
            }
        case (.failure(let copied), .failure(let mapped)):
            #expect(mapped == copied)
        default:
            Issue.record("read(contentsOfFile:) gave \(copied), read(mappingFile:) \(mapped)")
        }
    }

    @Test func everyShapeReadsAsFromACopy() throws {
        let cases: [(text: String, options: ReadOptions, extension: String)] = [
            ("id,name\n1,a\n2,\"two\nlines, \"\"quoted\"\"\"\r\n3,c\n1,again\n", ReadOptions(format: csv, key: ["id"]), "csv"),
            ("\u{FEFF}id\tname\r\n1\ta\r\n2\tb\r\n", ReadOptions(format: .csv(delimiter: .tab), key: ["id"]), "tsv"),
            ("{\"id\": 1, \"v\": [1, 2]}\n\n{\"v\": null, \"id\": 2}\n", ReadOptions(format: .ndjson, key: ["id"]), "ndjson"),
            ("[{\"id\": 1, \"x\": \"é\"}, {\"id\": 2, \"x\": {\"n\": 3}}]", ReadOptions(format: .json, key: ["id"]), "json"),
            ("{\"a\": [{\"id\": 1}], \"b\": [{\"id\": 2}, {\"id\": 3}]}", ReadOptions(format: .json, key: ["id"]), "json"),
            ("id,group\n1,x\n2,y\n3,x\n", ReadOptions(format: csv, key: ["id"], sectionBy: "group"), "csv"),
            ("id,name\n1,a,extra\n", ReadOptions(format: csv, key: ["id"]), "csv"),  // ragged: an error
            ("[{\"id\": 1}, ", ReadOptions(format: .json, key: ["id"]), "json"),  // cut short: an error
            ("id,name\n", ReadOptions(format: csv, key: ["id"]), "csv"),
        ]
        for (text, options, fileExtension) in cases {
            try expectSameRead(Array(text.utf8), options, extension: fileExtension)
        }
        try expectSameRead([0x69, 0x64, 0x0A, 0xC3, 0x28, 0x0A], ReadOptions(format: csv), extension: "csv")  // invalid UTF-8
        try expectSameRead([], ReadOptions(format: csv), extension: "csv")  // empty: not mapped, read
        try expectSameRead([], ReadOptions(format: .ndjson), extension: "ndjson")
    }

    @Test func randomFilesReadAsFromACopy() throws {
        let fields = ["", "plain", "\"a, b\"", "\"two\nlines\"", "\"\"\"quoted\"\"\"", "é中😀", "\"cr\r\nlf\""]
        var rng = SplitMix(seed: 19)
        for _ in 0..<50 {
            let rows = Int.random(in: 0..<40, using: &rng)
            var text = "id,name,note\n"
            for _ in 0..<rows {
                let name = fields.randomElement(using: &rng) ?? ""
                let note = fields.randomElement(using: &rng) ?? ""
                text += "\(Int.random(in: 0..<30, using: &rng)),\(name),\(note)" + (Bool.random(using: &rng) ? "\n" : "\r\n")
            }
            try expectSameRead(Array(text.utf8), ReadOptions(format: csv, key: ["id"]), extension: "csv")
        }
    }

    @Test func aLargeFileIsReadInHalvesFromTheMapping() throws {
        // Above SplitRead's 16 MiB: both halves read from the mapping.
        var text = "id,name,note\n"
        text.reserveCapacity(20 << 20)
        for row in 0..<560_000 {
            text += row % 9 == 0 ? "\(row % 500_000),n \(row),\"a \"\"quoted\"\"\nnote\"\n" : "\(row % 500_000),n \(row),plain note \(row)\n"
        }
        #expect(text.utf8.count > 16 << 20)
        try expectSameRead(Array(text.utf8), ReadOptions(format: csv, key: ["id"]), extension: "csv")
    }

    @Test func theFileIsMappedWhileTheListLivesAndUnmappedAfter() throws {
        let path = try Self.temporaryFile(Array("id,name\n1,a\n2,b\n".utf8), extension: "csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        func isMapped() throws -> Bool {
            // Read to the end: /proc files say they are empty.
            let maps = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
            defer { try? maps.close() }
            return String(decoding: try maps.readToEnd() ?? Data(), as: UTF8.self).contains(path)
        }
        do {
            let list = try ListReader(options: ReadOptions(format: csv, key: ["id"])).read(mappingFile: path)
            #expect(try isMapped())
            #expect(list.values == [row(["id": "1", "name": "a"]), row(["id": "2", "name": "b"])])
            withExtendedLifetime(list) {}
        }
        #expect(try !isMapped())
        // read(contentsOfFile:) copies: nothing stays mapped.
        let copied = try ListReader(options: ReadOptions(format: csv, key: ["id"])).read(contentsOfFile: path)
        #expect(try !isMapped())
        withExtendedLifetime(copied) {}
    }

    @Test func theSizeLimitAndAMissingFileAreReportedAsByACopy() throws {
        let path = try Self.temporaryFile(Array("[1, 2, 3]".utf8), extension: "json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = ListReader(options: ReadOptions(format: .json, sizeLimit: 8))
        #expect(throws: ListFormatError.fileTooLarge(size: 9, limit: 8)) { try reader.read(mappingFile: path) }
        #expect(throws: ListFormatError.cannotRead(path: "/nonexistent/x.csv", errno: ENOENT)) {
            try ListReader(options: ReadOptions(format: .json)).read(mappingFile: "/nonexistent/x.csv")
        }
    }
}
