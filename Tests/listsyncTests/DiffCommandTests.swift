import Foundation
import Glibc
import ListSyncTestSupport
import Testing

@Suite("listsync diff")
struct DiffCommandTests {
    @Test("lists that differ only in JSON whitespace and member order are identical: exit 0, no output")
    func identical() async throws {
        let files = try ScratchFiles()
        try files.write("old.json", #"[{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]"#)
        try files.write("new.json", "[\n  {\"name\":\"Ann\",\"id\":1},\n  {\"id\":2,   \"name\":\"Bob\"}\n]\n")
        for format in ["human", "ndjson"] {
            let result = try await files.runListsync("diff", "old.json", "new.json", "--key", "id", "--format", format)
            #expect(result.status == 0)
            #expect(result.standardOutput == "")
            #expect(result.standardError == "")
        }
    }

    @Test("--ignore leaves a field out of the comparison; the other fields still count")
    func ignoredField() async throws {
        let files = try ScratchFiles()
        try files.write("old.csv", "id,name,updated_at\n1,Ann,2024-01-01\n2,Bob,2024-01-01\n")
        try files.write("new.csv", "id,name,updated_at\n1,Ann,2024-02-02\n2,Bo,2024-02-02\n")
        let result = try await files.runListsync("diff", "old.csv", "new.csv", "--key", "id", "--ignore", "updated_at")
        #expect(result.status == 1)
        // Ignored fields are not part of the list at all: not compared, not shown.
        #expect(result.standardOutput == "~ 2  name: \"Bob\" → \"Bo\"\n")
        try files.write("same.csv", "id,name,updated_at\n1,Ann,2025-01-01\n2,Bob,2025-01-01\n")
        let same = try await files.runListsync("diff", "old.csv", "same.csv", "--key", "id", "--ignore", "updated_at")
        #expect(same.status == 0)
        #expect(same.standardOutput == "")
    }

    @Test("a renamed column is said once in the header line; records whose only change it is are not listed")
    func renamedColumn() async throws {
        let files = try ScratchFiles()
        try files.write("old.csv", "id,Security,sector\n1,Acme,x\n2,Beta,y\n")
        try files.write("new.csv", "id,Company,sector\n1,Acme,x\n2,Beta2,y\n")
        let result = try await files.runListsync("diff", "old.csv", "new.csv", "--key", "id")
        #expect(result.status == 1)
        #expect(result.standardOutput == "~ header: renamed: Security → Company\n~ 2  Company: \"Beta\" → \"Beta2\"\n")
    }

    @Test("a JSON diff reports members added and removed, never a guessed rename")
    func jsonMembersAreNotRenamed() async throws {
        let files = try ScratchFiles()
        try files.write("old.json", #"[{"cca3":"NOR","currency":"NOK","callingCode":"47"}]"#)
        try files.write("new.json", #"[{"cca3":"NOR","independent":true,"status":"officially-assigned"}]"#)
        let result = try await files.runListsync("diff", "old.json", "new.json", "--key", "cca3")
        #expect(result.status == 1)
        let header = try #require(result.standardOutput.split(separator: "\n").first)
        #expect(header == "~ header: added: independent, status; removed: currency, callingCode")
    }

    @Test("human output: one line per update, deletion, insertion and move, plain when not a terminal")
    func humanOutput() async throws {
        let files = try ScratchFiles()
        try files.write("old.csv", "id,name,city\n1,Ann,Oslo\n2,Bob,Lima\n3,Cy,Rome\n4,Di,Kyiv\n")
        try files.write("new.csv", "id,name,city\n4,Di,Kyiv\n1,Ann,Bergen\n3,Cy,Rome\n5,Ed,Pune\n")
        let result = try await files.runListsync("diff", "old.csv", "new.csv", "--key", "id")
        #expect(result.status == 1)
        #expect(result.standardError == "")
        #expect(result.standardOutput == """
            ~ 1  city: "Oslo" → "Bergen"
            − 2  {"id":"2","name":"Bob","city":"Lima"}
            + 5  {"id":"5","name":"Ed","city":"Pune"}
            → 4  line 5 → line 2

            """)
    }

    @Test("--color always paints each line; --color never and pipes do not")
    func colors() async throws {
        let files = try ScratchFiles()
        try files.write("old.ndjson", "{\"id\":1}\n")
        try files.write("new.ndjson", "{\"id\":2}\n")
        let colored = try await files.runListsync("diff", "old.ndjson", "new.ndjson", "--key", "id", "--color", "always")
        #expect(colored.standardOutput == "\u{1B}[31m− 1  {\"id\":1}\u{1B}[0m\n\u{1B}[32m+ 2  {\"id\":2}\u{1B}[0m\n")
        let plain = try await files.runListsync("diff", "old.ndjson", "new.ndjson", "--key", "id", "--color", "never")
        #expect(plain.standardOutput == "− 1  {\"id\":1}\n+ 2  {\"id\":2}\n")
    }

    @Test("without a key, records are named by their line and an edit is a deletion and an insertion")
    func keylessNames() async throws {
        let files = try ScratchFiles()
        try files.write("old.csv", "v\na\nb\n")
        try files.write("new.csv", "v\na\nc\n")
        let result = try await files.runListsync("diff", "old.csv", "new.csv")
        #expect(result.status == 1)
        #expect(result.standardOutput == "− line 3  {\"v\":\"b\"}\n+ line 3  {\"v\":\"c\"}\n")
    }

    @Test("ndjson output is the changeset encoding, one stage per line")
    func ndjsonStages() async throws {
        let files = try ScratchFiles()
        try files.write("old.csv", "id,name\n1,Ann\n2,Bob\n3,Cy\n")
        try files.write("new.csv", "id,name\n1,Anna\n3,Cy\n4,Di\n")
        let result = try await files.runListsync("diff", "old.csv", "new.csv", "--key", "id", "--format", "ndjson")
        #expect(result.status == 1)
        let stages = try #require(try JSONText.lines(result.standardOutput) as? [[String: Any]])
        try #require(stages.count == 3)
        // Stage 1: the update, at its old path, with the new value.
        #expect(Set(stages[0].keys) == ["element_updated"])
        let updated = try #require(stages[0]["element_updated"] as? [[String: Any]])
        #expect(updated.count == 1)
        #expect(updated.first?["at"] as? [Int] == [0, 0])
        #expect(updated.first?["value"] as? [String: String] == ["id": "1", "name": "Anna"])
        #expect((updated.first?["hash"] as? String)?.isEmpty == false)
        // Stage 2: the deletion of Bob, at his old path.
        #expect(stages[1]["element_deleted"] as? [[Int]] == [[0, 1]])
        // Stage 3: Di's insertion at her new path.
        let inserted = try #require(stages[2]["element_inserted"] as? [[String: Any]])
        #expect(inserted.first?["at"] as? [Int] == [0, 2])
        #expect(inserted.first?["value"] as? [String: String] == ["id": "4", "name": "Di"])
    }

    @Test("a header change is reported before the record changes, in both formats")
    func schemaChange() async throws {
        let files = try ScratchFiles()
        try files.write("old.csv", "id,mail\n1,a@x\n")
        try files.write("new.csv", "id,email,note\n1,a@x,hi\n")
        let human = try await files.runListsync("diff", "old.csv", "new.csv", "--key", "id")
        #expect(human.status == 1)
        #expect(human.standardOutput == """
            ~ header: added: note; renamed: mail → email
            ~ 1  +note: "hi"

            """)

        let ndjson = try await files.runListsync("diff", "old.csv", "new.csv", "--key", "id", "--format", "ndjson")
        #expect(ndjson.status == 1)
        let first = try #require(try JSONText.lines(ndjson.standardOutput).first as? [String: [String: Any]])
        let schema = try #require(first["schema"])
        #expect(schema["columns"] as? [String] == ["id", "email", "note"])
        #expect(schema["added"] as? [String] == ["note"])
        #expect(schema["renamed"] as? [[String: String]] == [["from": "mail", "to": "email"]])
    }

    @Test("sections are inserted and deleted with their records")
    func sections() async throws {
        let files = try ScratchFiles()
        try files.write("old.csv", "id,team\n1,red\n2,red\n3,blue\n")
        try files.write("new.csv", "id,team\n1,red\n2,green\n3,red\n")
        let result = try await files.runListsync("diff", "old.csv", "new.csv", "--key", "id", "--section-by", "team")
        #expect(result.status == 1)
        // blue is deleted with 3; green is inserted with 2, which leaves red; 3 arrives in red from the
        // deleted section, so it is an insertion there (ListDiff: a record goes with its section).
        #expect(result.standardOutput == """
            − section "blue" (1 record)
              − 3  {"id":"3","team":"blue"}
            − 2  {"id":"2","team":"red"}
            + section "green" (1 record)
              + 2  {"id":"2","team":"green"}
            + 3  {"id":"3","team":"red"}

            """)
    }

    @Test("records that change section and sections that change place are moves, with old and new places")
    func moves() async throws {
        let files = try ScratchFiles()
        try files.write("old.json", """
            {
            "red": [
            {"id": 1},
            {"id": 2}
            ],
            "blue": [
            {"id": 3}
            ],
            "gold": []
            }
            """)
        try files.write("new.json", """
            {
            "gold": [],
            "red": [
            {"id": 1}
            ],
            "blue": [
            {"id": 3},
            {"id": 2}
            ]
            }
            """)
        let result = try await files.runListsync("diff", "old.json", "new.json", "--key", "id")
        #expect(result.status == 1)
        #expect(result.standardOutput == """
            → section "gold" (0 records)  position 3 → 1
            → 2  section "red" line 4 → section "blue" line 8

            """)
    }

    @Test("an error in the new file names the new file and the position; exit 2, nothing on standard output")
    func errorInNewFile() async throws {
        let files = try ScratchFiles()
        try files.write("old.json", "[{\"id\": 1}]")
        try files.write("new.json", "[{\"id\": 1}, {\"id\": NaN}]")
        let result = try await files.runListsync("diff", "old.json", "new.json", "--key", "id")
        #expect(result.status == 2)
        #expect(result.standardOutput == "")
        #expect(result.standardError == "new.json:1:20: error: NaN and Infinity are not allowed in JSON\n")
    }

    @Test("a file truncated by another program while diff reads it through its mapping: a clear message and exit 2, not a bus error")
    func fileTruncatedWhileMapped() async throws {
        let files = try ScratchFiles()
        // Large enough that a debug build takes a while over it: the truncation lands while the
        // files are mapped, before or while their pages are read or rendered.
        var old = "id,name,price\n"
        var new = "id,name,price\n"
        for row in 0..<300_000 {
            old += "\(row),item number \(row) with a longer name,\(row % 997)\n"
            new += "\(row),item number \(row) with a longer name,\(row % 991)\n"
        }
        let oldPath = files.directory.appendingPathComponent(try files.write("old.csv", old)).path
        let newPath = files.directory.appendingPathComponent(try files.write("new.csv", new)).path
        // Standard output is a FIFO the test reads only after the truncation: the diff, which
        // renders the changed rows from the mapped files, stops once the pipe is full (64 KiB)
        // with both files mapped, however fast it is — a race it could win otherwise.
        let fifoPath = files.directory.appendingPathComponent("out").path
        #expect(mkfifo(fifoPath, 0o600) == 0)
        let reader = open(fifoPath, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(reader >= 0)
        defer { close(reader) }
        let process = try ChildProcess(
            try BuiltProducts.path("listsync"), ["diff", oldPath, newPath, "--key", "id"],
            outputPath: fifoPath, errorPath: files.directory.appendingPathComponent("err").path)
        // Both files mapped, as /proc/PID/maps shows, and the diff blocked on its output; then
        // cut them to their header.
        try await eventually("both files are mapped", timeout: .seconds(30)) {
            let maps = (try? String(contentsOfFile: "/proc/\(process.pid)/maps", encoding: .utf8)) ?? ""
            #expect(process.exitStatus == nil, "listsync diff ended before the files were truncated")
            return process.exitStatus != nil || (maps.contains(oldPath) && maps.contains(newPath))
        }
        #expect(truncate(oldPath, 14) == 0)
        #expect(truncate(newPath, 14) == 0)
        // Let it go on: read what it writes until it ends.
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        try await eventually("listsync diff exits", timeout: .seconds(60)) {
            while read(reader, &buffer, buffer.count) > 0 {}
            return process.exitStatus != nil
        }
        let status = process.exitStatus
        #expect(status == 2)
        #expect(process.errorOutput.contains("reading a mapped file failed (SIGBUS): most likely a file was truncated by another program while it was being read"))
    }

    @Test("a missing argument is a usage error with exit status 2")
    func usageError() async throws {
        let files = try ScratchFiles()
        let result = try await files.runListsync("diff", "old.csv")
        #expect(result.status == 2)
        #expect(result.standardError.contains("Missing expected argument '<new>'"))
    }
}
