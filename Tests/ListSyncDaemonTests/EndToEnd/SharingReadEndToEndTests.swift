import Glibc
import ListFormats
import ListSyncTestSupport
import Testing

extension EndToEndTests {
    /// The daemon's sharing read (issue 19: after a one-row save of a large file, the new version
    /// shares the unchanged ends of the one before and holds only the changed middle) through
    /// `kill -9` and restarts: a 1 MB list saved one row at a time by rename, in place, by
    /// appending and by cutting its end, some saves made while the daemon is down, beside a log a
    /// writer holds open and appends complete lines to (`publish_while_writing`, read without
    /// sharing): after every save both `listsync mirror` outputs equal `listsync snapshot`, and
    /// the snapshot equals the file.
    @Suite struct SharingReads {
        static let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])
        static let logOptions = ReadOptions(format: .csv(delimiter: .comma), key: ["id"])

        /// Whether, within `timeout`, `listsync snapshot WATCH` prints what `file` holds and the
        /// mirror output `mirror` holds the same.
        static func converged(
            _ harness: DaemonHarness, _ watch: String, file: String, options: ReadOptions, mirror: String, timeout: Duration = .seconds(90)
        ) async throws -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let expected = try? ListReader(options: options).read(contentsOfFile: file).document,
                    let snapshot = try await harness.snapshot(of: watch), snapshot == expected,
                    let mirrored = try? ListReader(options: ReadOptions(format: .json)).read(contentsOfFile: mirror).document,
                    mirrored == snapshot
                {
                    return true
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        @Test func oneRowSavesOfALargeFileThroughKillsAndRestarts() async throws {
            let harness = try DaemonHarness()
            let file = harness.path("list.csv")
            let logFile = harness.path("log.csv")
            func row(_ index: Int, version: Int = 0) -> String { "SKU\(index),item \(index),\(index % 997).\(version)" }
            // About 1 MB: sixteen chunks of the daemon's 64 KiB, so a one-row save shares most of them.
            var rows = (0..<40_000).map { row($0) }
            func text() -> String { "sku,name,price\n" + rows.map { $0 + "\n" }.joined() }
            try FileOperations.write(text(), to: file)
            try FileOperations.write("id,text\n0,first\n", to: logFile)
            try harness.writeConfig(
                [
                    "name = \"list\"\npath = \"\(file)\"\nkey = [\"sku\"]",
                    "name = \"log\"\npath = \"\(logFile)\"\nkey = [\"id\"]\npublish_while_writing = true",
                ], extra: "settle_while_writing_max_ms = 1000")
            try await harness.startDaemon()
            let mirrors = ["list", "log"].map { watch in
                EndToEndTests.Persistence.StormClient(
                    ["mirror", watch, "--socket", harness.socketPath, "--output", harness.path("\(watch).json")], logPath: harness.path("\(watch).mirror.log"))
            }
            for mirror in mirrors { try mirror.start() }
            // The log's writer: it holds the file open for good and appends complete lines.
            let writer = Glibc.open(logFile, O_WRONLY | O_APPEND | O_CLOEXEC)
            #expect(writer >= 0)
            defer { close(writer) }
            var logLines = 1
            func appendToLog() {
                let lines = "\(logLines),line \(logLines)\n\(logLines + 1),line \(logLines + 1)\n"
                logLines += 2
                let written = Array(lines.utf8).withUnsafeBytes { Glibc.write(writer, $0.baseAddress, $0.count) }
                #expect(written == lines.utf8.count)
            }

            var random = SplitMix(seed: 19)
            var kills = 0
            for step in 0..<30 {
                let killed = step % 7 == 6
                if killed {
                    harness.daemon?.send(SIGKILL)
                    _ = try await harness.daemon?.exited()
                    kills += 1
                }
                let edited = Int.random(in: 0..<rows.count, using: &random)
                rows[edited] = row(edited, version: step + 1)
                let save: String
                switch step % 5 {
                case 0:
                    save = "one row, renamed over"
                    try EndToEndTests.Subscribers.save(text(), to: file)
                case 1:
                    save = "one row, truncated and written in place"
                    try FileOperations.write(text(), to: file)
                case 2:
                    save = "rows appended"
                    let added = (0..<3).map { row(100_000 + step * 3 + $0) }
                    rows += added
                    // The edit above is written too, in place, before the append.
                    try FileOperations.write(text().dropLast(added.map { $0.count + 1 }.reduce(0, +)).description, to: file)
                    try FileOperations.write([added.map { $0 + "\n" }.joined()], to: file, flags: O_WRONLY | O_APPEND)
                case 3:
                    save = "the last rows cut off, in place"
                    rows.removeLast(2)
                    try FileOperations.write(text(), to: file)
                default:
                    save = "one row, renamed over, and lines appended to the open log"
                    try EndToEndTests.Subscribers.save(text(), to: file)
                    appendToLog()
                }
                if killed {
                    try await harness.startDaemon()
                    for mirror in mirrors { try mirror.start() }
                }
                let label = "step \(step) (\(save)\(killed ? ", daemon killed" : ""))"
                // The first that does not converge ends the test: the rest would only wait as long.
                try #require(
                    try await Self.converged(harness, "list", file: file, options: Self.options, mirror: harness.path("list.json")),
                    "\(label): list\n\(harness.log.suffix(2000))\n\(mirrors[0].log.suffix(1000))")
                try #require(
                    try await Self.converged(harness, "log", file: logFile, options: Self.logOptions, mirror: harness.path("log.json")),
                    "\(label): log\n\(harness.log.suffix(2000))\n\(mirrors[1].log.suffix(1000))")
            }
            #expect(kills >= 4)
            for mirror in mirrors { try await mirror.kill() }
            #expect(try await harness.stopDaemon() == 0)
        }
    }
}
