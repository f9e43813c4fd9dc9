import Foundation
import Testing

@Suite("listsync parse")
struct ParseCommandTests {
    @Test("CSV becomes a JSON array of objects of strings, in header order")
    func csvToJSON() async throws {
        let files = try ScratchFiles()
        try files.write("people.csv", "id,name,note\r\n1,Ann,\"a, \"\"b\"\"\nc\"\r\n2,Zoë,\r\n")
        let result = try await files.runListsync("parse", "people.csv")
        #expect(result.status == 0)
        #expect(result.standardError == "")
        let records = try #require(try JSONText.value(result.standardOutput) as? [[String: String]])
        #expect(records == [
            ["id": "1", "name": "Ann", "note": "a, \"b\"\nc"],
            ["id": "2", "name": "Zoë", "note": ""],
        ])
        // Member order is the header's.
        let first = try #require(result.standardOutput.split(separator: "\n").dropFirst().first)
        #expect(first.hasPrefix("{\"id\":\"1\",\"name\":\"Ann\",\"note\":"))
    }

    @Test("--ignore leaves fields out of the output, as the daemon leaves them out of what it publishes")
    func ignoredFields() async throws {
        let files = try ScratchFiles()
        try files.write("people.csv", "id,name,updated_at\n1,Ann,monday\n")
        let csv = try await files.runListsync("parse", "people.csv", "--ignore", "updated_at", "--output-format", "csv")
        #expect(csv.status == 0)
        #expect(csv.standardOutput == "id,name\n1,Ann\n")
        try files.write("people.json", #"[{"id":1,"meta":{"at":"monday","by":"Bo"}}]"#)
        let json = try await files.runListsync("parse", "people.json", "--ignore", "/meta/at", "--output-format", "ndjson")
        #expect(json.standardOutput == #"{"id":1,"meta":{"by":"Bo"}}"# + "\n")
    }

    @Test("--section-by makes a JSON object of arrays, sections in order of first appearance")
    func sectionedJSON() async throws {
        let files = try ScratchFiles()
        try files.write("cities.csv", "id,city\n1,Oslo\n2,Lima\n3,Oslo\n")
        let result = try await files.runListsync("parse", "cities.csv", "--section-by", "city")
        #expect(result.status == 0)
        let sections = try #require(try JSONText.value(result.standardOutput) as? [String: [[String: String]]])
        #expect(sections == [
            "Oslo": [["id": "1", "city": "Oslo"], ["id": "3", "city": "Oslo"]],
            "Lima": [["id": "2", "city": "Lima"]],
        ])
        let oslo = try #require(result.standardOutput.range(of: "\"Oslo\":"))
        let lima = try #require(result.standardOutput.range(of: "\"Lima\":"))
        #expect(oslo.lowerBound < lima.lowerBound)
    }

    @Test("JSON converts to CSV with RFC 4180 quoting only where needed, numbers as written")
    func jsonToCSV() async throws {
        let files = try ScratchFiles()
        try files.write("items.json", #"[{"id": 12345678901234567890123, "name": "B, C"}, {"id": 2.50, "name": "say \"hi\""}]"#)
        let result = try await files.runListsync("parse", "items.json", "--output-format", "csv")
        #expect(result.status == 0)
        #expect(result.standardOutput == "id,name\n12345678901234567890123,\"B, C\"\n2.50,\"say \"\"hi\"\"\"\n")
    }

    @Test("an object of arrays converted to CSV keeps its sections in a column, and reading that column gives them back")
    func sectionsRoundTripThroughCSV() async throws {
        let files = try ScratchFiles()
        try files.write("teams.json", #"{"red": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bo"}], "blue": [{"id": 3, "name": "Cy"}], "green": []}"#)
        let csv = try await files.runListsync("parse", "teams.json", "--output-format", "csv")
        #expect(csv.status == 0)
        #expect(csv.standardOutput == "section,id,name\nred,1,Ann\nred,2,Bo\nblue,3,Cy\n")
        try files.write("teams.csv", csv.standardOutput)
        let back = try await files.runListsync("parse", "teams.csv", "--section-by", "section")
        let sections = try #require(try JSONText.value(back.standardOutput) as? [String: [[String: String]]])
        #expect(sections == [
            "red": [["section": "red", "id": "1", "name": "Ann"], ["section": "red", "id": "2", "name": "Bo"]],
            "blue": [["section": "blue", "id": "3", "name": "Cy"]],
        ])
        #expect(back.standardOutput.range(of: "\"red\":")!.lowerBound < back.standardOutput.range(of: "\"blue\":")!.lowerBound)

        let named = try await files.runListsync("parse", "teams.json", "--output-format", "tsv", "--section-column", "team")
        #expect(named.standardOutput.hasPrefix("team\tid\tname\nred\t1\tAnn\n"))
    }

    @Test("a section column is added only where the records do not carry their sections, and never over a member")
    func sectionColumnOnlyWhereNeeded() async throws {
        let files = try ScratchFiles()
        try files.write("cities.csv", "id,city\n1,Oslo\n2,Lima\n3,Oslo\n")
        let bySection = try await files.runListsync("parse", "cities.csv", "--section-by", "city", "--output-format", "csv")
        #expect(bySection.standardOutput == "id,city\n1,Oslo\n3,Oslo\n2,Lima\n")
        try files.write("teams.json", #"{"red": [{"id": 1, "section": "x"}]}"#)
        let taken = try await files.runListsync("parse", "teams.json", "--output-format", "csv")
        #expect(taken.status == 2 && taken.standardError.contains("--section-column"), "\(taken.standardError)")
        #expect(try await files.runListsync("parse", "teams.json", "--output-format", "csv", "--section-column", "team").standardOutput == "team,id,section\nred,1,x\n")
    }

    @Test("NDJSON output has one compact record per line")
    func ndjsonOutput() async throws {
        let files = try ScratchFiles()
        try files.write("list.tsv", "k\tv\nx\t1\ny\t2\n")
        let result = try await files.runListsync("parse", "list.tsv", "--output-format", "ndjson")
        #expect(result.status == 0)
        #expect(result.standardOutput == "{\"k\":\"x\",\"v\":\"1\"}\n{\"k\":\"y\",\"v\":\"2\"}\n")
    }

    @Test("--input-format and --delimiter override the extension")
    func explicitFormat() async throws {
        let files = try ScratchFiles()
        try files.write("export.txt", "a;b\n1;2\n")
        let result = try await files.runListsync("parse", "export.txt", "--input-format", "csv", "--delimiter", "semicolon")
        #expect(result.status == 0)
        #expect(try JSONText.value(result.standardOutput) as? [[String: String]] == [["a": "1", "b": "2"]])
    }

    @Test(
        "--delimiter takes the character itself as well as its name",
        arguments: [("a;b\n1;2\n", ";"), ("a\tb\n1\t2\n", "\t"), ("a\tb\n1\t2\n", "\\t"), ("a|b\n1|2\n", "|"), ("a,b\n1,2\n", ","), ("a|b\n1|2\n", "PIPE")])
    func delimiterCharacters(contents: String, delimiter: String) async throws {
        let files = try ScratchFiles()
        try files.write("export.txt", contents)
        let result = try await files.runListsync("parse", "export.txt", "--input-format", "csv", "--delimiter", delimiter)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try JSONText.value(result.standardOutput) as? [[String: String]] == [["a": "1", "b": "2"]])
        let wrong = try await files.runListsync("parse", "export.txt", "--input-format", "csv", "--delimiter", ":")
        #expect(wrong.status == 2)
    }

    @Test("--ragged-rows pad fills short rows; the default refuses them with a position")
    func raggedRows() async throws {
        let files = try ScratchFiles()
        try files.write("short.csv", "a,b,c\n1,2,3\n4,5\n")
        let refused = try await files.runListsync("parse", "short.csv")
        #expect(refused.status == 2)
        #expect(refused.standardError.hasPrefix("short.csv:3:"))
        #expect(refused.standardError.contains("error: row has 2 fields, the header has 3"))
        let padded = try await files.runListsync("parse", "short.csv", "--ragged-rows", "pad", "--output-format", "csv")
        #expect(padded.status == 0)
        #expect(padded.standardOutput == "a,b,c\n1,2,3\n4,5,\n")
    }

    @Test("a CSV error exits 2 with file:line:column on standard error and nothing on standard output")
    func csvErrorPosition() async throws {
        let files = try ScratchFiles()
        try files.write("bad.csv", "id,name\n1,Ann\n2,\"Bob\n")
        let result = try await files.runListsync("parse", "bad.csv")
        #expect(result.status == 2)
        #expect(result.standardOutput == "")
        #expect(result.standardError == "bad.csv:3:3: error: quoted field is never closed\n")
    }

    @Test("a JSON error exits 2 with file:line:column")
    func jsonErrorPosition() async throws {
        let files = try ScratchFiles()
        try files.write("bad.json", "[\n  {\"id\": 1},\n  {\"id\": 2},\n]\n")
        let result = try await files.runListsync("parse", "bad.json")
        #expect(result.status == 2)
        #expect(result.standardError == "bad.json:3:12: error: trailing comma\n")
    }

    @Test("a record without its key field is a positioned error")
    func missingKey() async throws {
        let files = try ScratchFiles()
        try files.write("list.ndjson", "{\"id\": 1}\n{\"name\": \"x\"}\n")
        let result = try await files.runListsync("parse", "list.ndjson", "--key", "id")
        #expect(result.status == 2)
        #expect(result.standardError == "list.ndjson:2:1: error: record has no field \"id\"\n")
    }

    @Test("repeated keys are read and warned about, with the first repeat's position")
    func duplicateKeyWarning() async throws {
        let files = try ScratchFiles()
        try files.write("dup.csv", "id,v\n1,a\n2,b\n1,c\n1,d\n")
        let result = try await files.runListsync("parse", "dup.csv", "--key", "id", "--output-format", "ndjson")
        #expect(result.status == 0)
        #expect(result.standardOutput.split(separator: "\n").count == 4)
        #expect(result.standardError == "dup.csv:4:1: warning: 2 records repeat the key of an earlier one; the first is here\n")
    }

    @Test("files it cannot read or name exit 2")
    func unreadableFiles() async throws {
        let files = try ScratchFiles()
        let missing = try await files.runListsync("parse", "nowhere.csv")
        #expect(missing.status == 2)
        #expect(missing.standardError == "nowhere.csv: error: cannot read: No such file or directory\n")

        try files.write("list.dat", "a\n1\n")
        let unknown = try await files.runListsync("parse", "list.dat")
        #expect(unknown.status == 2)
        #expect(unknown.standardError.hasPrefix("list.dat: error: cannot tell the format"))
    }

    @Test("usage errors exit 2 too")
    func usageErrors() async throws {
        let files = try ScratchFiles()
        try files.write("list.json", "[]")
        let result = try await files.runListsync("parse", "list.json", "--output-format", "xml")
        #expect(result.status == 2)
        #expect(result.standardError.contains("xml"))
        let delimiter = try await files.runListsync("parse", "list.json", "--delimiter", "tab")
        #expect(delimiter.status == 2)
        #expect(delimiter.standardError == "listsync: error: --delimiter applies to csv and tsv input only\n")
    }
}
