import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

extension EndToEndTests {
    /// Real writer and reader processes on a watched file: a file a writer holds open is not
    /// published (its status is `writing`) unless its watch publishes while writing, and a reader
    /// holding it open never delays a save.
    @Suite struct Writers {}
}

extension EndToEndTests.Writers {
    /// A CSV export of 27 rows, each with `value`.
    private static func export(_ value: String) -> String {
        "id,value\n" + (1...27).map { "\($0),\(value)\($0)\n" }.joined()
    }

    private static let csv = ReadOptions(format: .csv(delimiter: .comma), key: ["id"])

    private static func document(_ text: String) throws -> ListDocument {
        try ListReader(options: Self.csv).read(bytes: Array(text.utf8)).document
    }

    /// A real slow writer: `sh` opens `path` (truncating it), writes `first`, keeps the file
    /// open for `seconds` while it sleeps (the sleep does not inherit the file), writes `rest`
    /// and exits, closing it.
    private static func slowWriter(_ path: String, first: String, hold seconds: Int, rest: String, log: String) throws -> DaemonProcess {
        try DaemonProcess(
            executable: "/bin/sh",
            arguments: ["-c", #"exec 3>"$1"; printf %s "$2" >&3; sleep "$3" 3>&-; printf %s "$4" >&3"#, "sh", path, first, String(seconds), rest],
            logPath: log)
    }

    /// Runs `listsync ARGUMENTS --socket …` to its end; returns what it printed.
    private static func listsync(_ arguments: [String], harness: DaemonHarness) async throws -> String {
        let log = harness.path("listsync-\(UInt32.random(in: 0...UInt32.max)).log")
        let process = try DaemonProcess(executable: try DaemonProcess.cliPath, arguments: arguments + ["--socket", harness.socketPath], logPath: log)
        #expect(try await process.exited(timeout: .seconds(30)) == 0, "listsync \(arguments): \(process.log)")
        return process.log
    }

    /// The issue's slow export: the header, two of 27 rows and half a third (`3,ne`), then 6 s open,
    /// then the rest — past `settle_while_writing_max_ms` (2 s here), which used to publish the
    /// half. Subscribers get exactly one changeset, from the old export to the new one; while
    /// the writer holds the file, the status is `writing` with its `since`, and `listsync list`
    /// and `listsync subscribe` say so.
    @Test func aSlowExportIsPublishedOnlyOnceItsWriterClosesIt() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("export.csv")
        try FileOperations.write(Self.export("old"), to: file)
        try harness.writeConfig(["name = \"export\"\npath = \"\(file)\"\nkey = [\"id\"]"], extra: "settle_while_writing_max_ms = 2000")
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("export")
        subscriber.recordsDocuments = true
        #expect(try await subscriber.receiveUntil { $0.snapshots == 1 })
        let human = try DaemonProcess(
            executable: try DaemonProcess.cliPath, arguments: ["subscribe", "export", "--socket", harness.socketPath, "--format", "human"],
            logPath: harness.path("subscribe.log"))
        try await subscriber.receiveUntil(timeout: .milliseconds(500)) { _ in false }

        let final = Self.export("new")
        let lines = final.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let first = lines[0...2].joined(separator: "\n") + "\n3,ne"
        let started = ContinuousClock.now
        let wallStart = Int64(time(nil)) * 1000
        let writer = try Self.slowWriter(file, first: first, hold: 6, rest: String(final.dropFirst(first.utf8.count)), log: harness.path("writer.log"))

        #expect(try await subscriber.receiveUntil(timeout: .seconds(3)) { $0.status?.state == .writing }, "no writing status: \(subscriber.statuses)\n\(harness.log)")
        if let since = subscriber.status?.since {
            #expect(since >= wallStart - 1000 && since <= Int64(time(nil)) * 1000 + 1000, "since \(since), the writer started at \(wallStart)")
        } else {
            Issue.record("a writing status without since: \(String(describing: subscriber.status))")
        }
        // Past the 2 s bound, with the writer still holding the file.
        try await subscriber.receiveUntil(timeout: .seconds(3) - (ContinuousClock.now - started)) { _ in false }
        let listed = try await Self.listsync(["list", "--format", "ndjson"], harness: harness)
        let table = try await Self.listsync(["list"], harness: harness)
        #expect(ContinuousClock.now - started < .seconds(6), "the checks came after the writer was done; the test proves nothing")
        #expect(listed.contains(#""state":"writing""#) && listed.contains(#""since":"#), "list --format ndjson: \(listed)")
        #expect(table.contains("writing ("), "list: \(table)")

        #expect(try await writer.exited(timeout: .seconds(20)) == 0, "the writer failed: \(writer.log)")
        #expect(try await subscriber.receiveUntilMirroring(file, options: Self.csv), "\(harness.log)")
        // Anything else published would come within the settle delays.
        try await subscriber.receiveUntil(timeout: .milliseconds(600)) { _ in false }
        #expect(subscriber.documents == [try Self.document(Self.export("old")), try Self.document(final)], "a partial version reached the subscriber: \(subscriber.documents)\n\(harness.log)")
        #expect(subscriber.changesets.count == 1)
        #expect(subscriber.status?.state == .ok, "\(subscriber.statuses)")
        human.send(SIGTERM)
        _ = try await human.exited()
        #expect(human.log.contains("export writing: a writer has held the file open for"), "subscribe printed: \(human.log)")
        #expect(try await harness.stopDaemon() == 0)
    }

    /// A complete file that merely lacks a final newline, which no writer holds, keeps its last
    /// row.
    @Test func aClosedFileWithoutAFinalNewlineKeepsItsLastRow() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("list.csv")
        try FileOperations.write("id,value\n1,a\n", to: file)
        try harness.writeConfig(["name = \"list\"\npath = \"\(file)\"\nkey = [\"id\"]"])
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntil { $0.snapshots == 1 })
        try FileOperations.write("id,value\n1,a\n2,b", to: file)
        #expect(try await subscriber.receiveUntil { $0.mirror?.document == (try? Self.document("id,value\n1,a\n2,b\n")) }, "\(String(describing: subscriber.mirror?.document))")
        #expect(try await harness.stopDaemon() == 0)
    }

    /// A log kept open for good, with `publish_while_writing = true`: published every
    /// `settle_while_writing_max_ms` (1 s here) while its writer goes on, and never with the line
    /// it has not finished — the file always ends with half a line — nor with a `writing` status.
    @Test func publishWhileWritingPublishesPeriodicallyWithoutTheUnterminatedLine() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("log.csv")
        let row = { (id: Int) in "\(id),row\(id)\n" }
        try FileOperations.write("id,text\n" + row(0), to: file)
        try harness.writeConfig(
            ["name = \"log\"\npath = \"\(file)\"\nkey = [\"id\"]\npublish_while_writing = true"], extra: "settle_while_writing_max_ms = 1000")
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("log")
        subscriber.recordsDocuments = true
        #expect(try await subscriber.receiveUntil { $0.snapshots == 1 })

        // Appends "1,ro", then every 0.3 s "wN\nN+1,ro", and at last "w13\n".
        let script = #"exec 3>>"$1"; printf '1,ro' >&3; i=1; while [ $i -le 12 ]; do sleep 0.3 3>&-; printf 'w%d\n%d,ro' $i $((i+1)) >&3; i=$((i+1)); done; sleep 0.3 3>&-; printf 'w13\n' >&3"#
        let writer = try DaemonProcess(executable: "/bin/sh", arguments: ["-c", script, "sh", file], logPath: harness.path("writer.log"))
        var whileWriting = 0
        while (try? await writer.exited(timeout: .milliseconds(1))) == nil {
            try await subscriber.receiveUntil(timeout: .milliseconds(100)) { _ in false }
            whileWriting = subscriber.changesets.count
        }
        #expect(writer.log.isEmpty, "the writer: \(writer.log)")
        #expect(try await subscriber.receiveUntilMirroring(file, options: Self.csv), "\(harness.log)")
        let whole = Set(try (0...13).map { last in try Self.document("id,text\n" + (0...last).map(row).joined()) })
        let partial = subscriber.documents.filter { !whole.contains($0) }
        #expect(partial.isEmpty, "published with an unfinished line: \(partial)")
        #expect(whileWriting >= 2, "\(whileWriting) versions published while the writer went on for about 4 s")
        #expect(!subscriber.statuses.contains { $0.state == .writing }, "\(subscriber.statuses)")
        #expect(try await harness.stopDaemon() == 0)
    }

    /// `tail -f` holds the file open: a save in place reaches subscribers within the settle
    /// delays, not after `settle_while_writing_max_ms` (5 s, the default, here). With the reader
    /// still there, a slow writer is held back all the same, and published once it closes.
    @Test func aReaderHoldingTheFileDelaysNothingAndAWriterBesideItStillHoldsItBack() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("list.csv")
        try FileOperations.write(Self.export("old"), to: file)
        try harness.writeConfig(["name = \"list\"\npath = \"\(file)\"\nkey = [\"id\"]"])
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        subscriber.recordsDocuments = true
        #expect(try await subscriber.receiveUntil { $0.snapshots == 1 })
        let tail = try DaemonProcess(executable: "/usr/bin/tail", arguments: ["-f", file], logPath: harness.path("tail.log"))
        defer { tail.send(SIGKILL) }
        // tail prints the file's last lines once it has it open.
        #expect(try await subscriber.receiveUntil(timeout: .seconds(5)) { _ in tail.log.contains("27,old27") })
        try await subscriber.receiveUntil(timeout: .milliseconds(300)) { _ in false }

        for (index, value) in ["a", "b", "c"].enumerated() {
            let started = ContinuousClock.now
            try FileOperations.write(Self.export(value), to: file)
            #expect(try await subscriber.receiveUntilMirroring(file, options: Self.csv))
            let waited = ContinuousClock.now - started
            #expect(waited < .seconds(2), "save \(index) published after \(waited) while tail -f held the file")
        }

        let final = Self.export("new")
        let first = "id,value\n1,new1\n2,ne"
        let writer = try Self.slowWriter(file, first: first, hold: 3, rest: String(final.dropFirst(first.utf8.count)), log: harness.path("writer.log"))
        #expect(try await subscriber.receiveUntil(timeout: .seconds(3)) { $0.status?.state == .writing }, "no writing status: \(subscriber.statuses)")
        #expect(try await writer.exited(timeout: .seconds(20)) == 0)
        #expect(try await subscriber.receiveUntilMirroring(file, options: Self.csv), "\(harness.log)")
        try await subscriber.receiveUntil(timeout: .milliseconds(600)) { _ in false }
        let complete = Set(try ["old", "a", "b", "c", "new"].map { try Self.document(Self.export($0)) })
        #expect(subscriber.documents.allSatisfy(complete.contains), "a partial version reached the subscriber")
        #expect(subscriber.documents.count == 5, "\(subscriber.documents.count) versions")
        #expect(subscriber.status?.state == .ok)
        #expect(try await harness.stopDaemon() == 0)
    }
}
