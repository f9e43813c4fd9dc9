import Foundation
import ListFormats
import Testing

@Suite struct ListReaderTests {
    private func temporaryFile(_ contents: String, extension fileExtension: String) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("listformats-\(UUID().uuidString).\(fileExtension)").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func readsFiles() throws {
        let path = try temporaryFile("id,name\n1,a\n", extension: "csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let format = try #require(ListFormat(path: path))
        let list = try ListReader(options: ReadOptions(format: format, key: ["id"])).read(contentsOfFile: path)
        #expect(list.values == [row(["id": "1", "name": "a"])])
    }

    @Test func refusesFilesAboveTheSizeLimitBeforeReadingThem() throws {
        let path = try temporaryFile("[1, 2, 3]", extension: "json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = ListReader(options: ReadOptions(format: .json, sizeLimit: 8))
        #expect(throws: ListFormatError.fileTooLarge(size: 9, limit: 8)) { try reader.read(contentsOfFile: path) }
        #expect(throws: ListFormatError.fileTooLarge(size: 9, limit: 8)) { try reader.read(bytes: Array("[1, 2, 3]".utf8)) }
        #expect(throws: Never.self) { try ListReader(options: ReadOptions(format: .json, sizeLimit: 9)).read(contentsOfFile: path) }
        #expect(ListFormatError.fileTooLarge(size: 9, limit: 8).description == "file is 9 bytes, larger than the limit of 8 bytes")
    }

    @Test func missingFilesAreReported() {
        #expect(throws: ListFormatError.cannotRead(path: "/nonexistent/x.csv", errno: ENOENT)) {
            try ListReader(options: ReadOptions(format: .json)).read(contentsOfFile: "/nonexistent/x.csv")
        }
    }
}
