import Glibc
import ListSyncTestSupport
import Logging
import Testing

@testable import ListSyncDaemon

/// Log records reach the journal through its native protocol with `LISTSYNC_*` fields when
/// standard error is the journal.
@Suite struct JournalFieldsTests {
    @Test func aValueWithALineBreakUsesTheBinaryForm() {
        let datagram = JournalSender.datagram([("MESSAGE", "one\ntwo"), ("PRIORITY", "6")])
        let expected: [UInt8] = Array("MESSAGE\n".utf8) + [7, 0, 0, 0, 0, 0, 0, 0] + Array("one\ntwo\nPRIORITY=6\n".utf8)
        #expect(datagram == expected)
    }

    @Test func aRecordAboutAWatchCarriesItsFields() {
        let handler = StandardErrorLogHandler(label: "listsyncd", style: .journal)
        let event = LogEvent(
            level: .warning, message: "file is invalid",
            metadata: ["watch": "products", "path": "/srv/p.csv", "cursor": "5f0c2a4e19b7d3a8:3", "problem": "2:3: bad"],
            source: "", file: "", function: "", line: 0)
        let fields = Dictionary(uniqueKeysWithValues: handler.journalFields(event).map { ($0.name, $0.value) })
        #expect(
            fields == [
                "MESSAGE": "file is invalid cursor=5f0c2a4e19b7d3a8:3 path=/srv/p.csv problem=2:3: bad watch=products", "PRIORITY": "4",
                "SYSLOG_IDENTIFIER": "listsyncd", "LISTSYNC_LOGGER": "listsyncd", "LISTSYNC_WATCH": "products",
                "LISTSYNC_CURSOR": "5f0c2a4e19b7d3a8:3", "LISTSYNC_PATH": "/srv/p.csv",
            ])
    }

    /// A real daemon whose standard error is "the journal" (`JOURNAL_STREAM` names its log file)
    /// sends its records to the journal's socket (a datagram socket standing in for journald).
    @Test func theDaemonSendsItsRecordsWithFieldsToTheJournal() async throws {
        let harness = try DaemonHarness()
        try FileOperations.write("id,name\n1,a\n", to: harness.path("list.csv"))
        try harness.writeConfig(["name = \"list\"\npath = \"list.csv\"\nkey = \"id\""])
        let journal = try DatagramListener(notifySocket: harness.path("journal"))
        let logPath = harness.path("stderr.log")
        try FileOperations.write("", to: logPath)
        var status = stat()
        #expect(stat(logPath, &status) == 0)
        let daemon = try DaemonProcess(
            config: harness.configPath,
            environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)", JournalSender.testSocketVariable: harness.path("journal")],
            logPath: logPath)
        var records: [[String: String]] = []
        func found(_ prefix: String) -> [String: String]? { records.last { $0["MESSAGE"]?.hasPrefix(prefix) == true } }
        while found("new version") == nil || found("ready") == nil {
            let datagram = try await journal.nextDatagram()
            records.append(Dictionary(
                datagram.split(separator: "\n").compactMap { line in
                    line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
                }, uniquingKeysWith: { $1 }))
        }
        let version = try #require(found("new version"))
        #expect(version["LISTSYNC_WATCH"] == "list")
        #expect(version["PRIORITY"] == "6")
        #expect(version["SYSLOG_IDENTIFIER"] == "listsyncd")
        let cursor = try #require(version["LISTSYNC_CURSOR"])
        #expect(cursor.hasSuffix(":0"))
        #expect(version["MESSAGE"] == "new version cursor=\(cursor) rows=1 seq=0 watch=list")
        #expect(found("ready")?["LISTSYNC_WATCH"] == nil, "a record about no watch has no watch field")
        // Taken by the journal, so not written to standard error as well.
        #expect(!daemon.log.contains("new version"), "\(daemon.log)")
        daemon.send(SIGTERM)
        #expect(try await daemon.exited() == 0)
    }
}
