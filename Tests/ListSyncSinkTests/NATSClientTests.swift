import Glibc
import ListSyncProtocol
import ListSyncSink
import ListSyncTestSupport
import Testing

/// `listsync subscribe` and `exec` with `--from nats://…`: fed by the stream alone, with the
/// daemon stopped, they print and run what they do over the socket.
extension NATSSinkTests {
    /// The snapshot and changeset lines of `client` (not the statuses, which only the daemon
    /// sends) once the last is at `cursor`.
    static func lines(of client: ChildProcess, reaching cursor: Cursor, _ what: String) async throws -> [String] {
        func versions() -> [String] {
            client.output.split(separator: "\n").map(String.init).filter {
                $0.hasPrefix("{\"type\":\"snapshot\"") || $0.hasPrefix("{\"type\":\"changeset\"")
            }
        }
        try await eventually("\(what) printed \(cursor)", timeout: .seconds(60)) {
            versions().last?.contains("\"cursor\":\"\(cursor)\"") == true
        }
        return versions()
    }

    /// `subscribe --from` with the daemon stopped prints the lines a socket subscriber (version
    /// 2, the sink's) printed for the same cursors (snapshot and changesets, byte for byte: the
    /// stream carries version 2 lines), and with --since the changesets after that cursor, as
    /// the socket's `--since` printed them. A socket subscriber with `--protocol 1` gets version
    /// 1 lines: they differ from the stream's in their `digest` alone. `--protocol` with
    /// `--from`, and a version no one speaks, are usage errors.
    @Test func subscribeFromTheStreamPrintsTheSocketsLines() async throws {
        let servers = try await NATSServers()
        let harness = try await EndToEndHarness.running()
        let sink = try Self.startSink(harness, servers, number: 0)
        let first = try await Self.waitUntilPublished(harness, servers, "the first snapshot")
        // Subscribed at the cursor of the stream's snapshot, before any changeset.
        let socket = try harness.client("subscribe", ["products", "--format", "ndjson", "--protocol", "1"])
        let newest = try harness.client("subscribe", ["products", "--format", "ndjson"])
        _ = try await Self.lines(of: socket, reaching: first, "the socket subscriber")
        _ = try await Self.lines(of: newest, reaching: first, "the socket subscriber without --protocol")
        for version in 1...4 {
            try await harness.save(ProductVersions.csv(version))
            try await harness.waitForVersion(UInt64(version))
        }
        let final = try await Self.waitUntilPublished(harness, servers, "four versions")
        let since = Cursor(epoch: final.epoch, seq: 1)
        let socketSince = try harness.client("subscribe", ["products", "--format", "ndjson", "--since", "\(since)"])
        let version1 = try await Self.lines(of: socket, reaching: final, "the socket subscriber with --protocol 1")
        let expected = try await Self.lines(of: newest, reaching: final, "the socket subscriber without --protocol")
        let expectedSince = try await Self.lines(of: socketSince, reaching: final, "the socket subscriber --since")
        try await harness.stopDaemon()
        sink.send(SIGKILL)

        let nats = try harness.client("subscribe", ["products", "--format", "ndjson", "--from", servers.urls])
        #expect(try await Self.lines(of: nats, reaching: final, "subscribe --from") == expected, "\(nats.errorOutput)")
        #expect(expected.count == 5, "a snapshot and four changesets: \(expected)")
        let natsSince = try harness.client("subscribe", ["products", "--format", "ndjson", "--from", servers.urls, "--since", "\(since)"])
        #expect(try await Self.lines(of: natsSince, reaching: final, "subscribe --from --since") == expectedSince, "\(natsSince.errorOutput)")
        #expect(expectedSince.count == 3, "the changesets after \(since): \(expectedSince)")
        #expect(nats.exitStatus == nil && natsSince.exitStatus == nil, "subscribe --from goes on following")

        // With --protocol 1: version 1, the same lines but for the digest.
        let digest = /"digest":"([0-9a-f]{64})"/
        #expect(version1.map { $0.replacing(digest, with: "") } == expected.map { $0.replacing(digest, with: "") })
        let digests = (version1: version1.compactMap { $0.firstMatch(of: digest)?.1 }, version2: expected.compactMap { $0.firstMatch(of: digest)?.1 })
        #expect(digests.version1.count == 5 && digests.version2.count == 5, "a digest on the snapshot's last chunk and on each changeset")
        #expect(zip(digests.version1, digests.version2).allSatisfy { $0 != $1 }, "version 2 digests, not version 1's: \(digests)")
        #expect(newest.exitStatus == nil, "\(newest.errorOutput)")

        for version in ["1", "2"] {
            let refused = try await harness.run("subscribe", ["products", "--format", "ndjson", "--from", servers.urls, "--protocol", version])
            #expect(refused.status == 1 && refused.error.contains("--protocol \(version) with --from"), "\(refused.error)")
        }
        let unknown = try await harness.run("subscribe", ["products", "--protocol", "3"])
        #expect(unknown.status == 1 && unknown.error.contains("--protocol 3"), "\(unknown.error)")
    }

    /// `exec` without `--protocol` over the socket feeds its command the version 2 changeset
    /// line, with the stream's (version 2) digest; `exec --protocol 1` gets the line a version 1
    /// client gets, which differs in its digest alone. `exec` and `mirror` refuse `--protocol`
    /// with `--from` (the stream's lines are at its sink's version); `mirror --protocol 1`
    /// mirrors the list.
    @Test func execAndMirrorOfferTheProtocolVersionGiven() async throws {
        let servers = try await NATSServers()
        let harness = try await EndToEndHarness.running()
        let sink = try Self.startSink(harness, servers, number: 0)
        _ = try await Self.waitUntilPublished(harness, servers, "the first snapshot")
        let script = #"cat > "$0-$LISTSYNC_CURSOR""#
        let version1 = try harness.client("exec", ["products", "--protocol", "1", "--", "/bin/sh", "-c", script, harness.path("v1")])
        let version2 = try harness.client("exec", ["products", "--", "/bin/sh", "-c", script, harness.path("v2")])
        try await eventually("both execs have subscribed") {
            version1.errorOutput.contains("subscribed to products") && version2.errorOutput.contains("subscribed to products")
        }
        try await harness.save(ProductVersions.csv(1))
        try await harness.waitForVersion(1)
        let cursor = try await Self.waitUntilPublished(harness, servers, "version 1")
        try await eventually("both commands took their line", timeout: .seconds(30)) {
            ["v1", "v2"].allSatisfy { readFile(harness.path("\($0)-\(cursor)")).hasSuffix("\n") }
        }
        let published = try await Self.messages(servers).filter {
            JetStreamEnvelope(headers: $0.headers).map { $0.cursor == cursor && $0.kind == .changeset } ?? false
        }
        let line = try #require(published.first.map { String(decoding: $0.payload, as: UTF8.self) }, "the stream's changeset at \(cursor)")
        #expect(published.count == 1, "one message")
        // The socket's line as the daemon sent it (with "push"), the stream's as the sink encodes it: their digests.
        let digest = /"digest":"([0-9a-f]{64})"/
        let (oldest, newest) = (readFile(harness.path("v1-\(cursor)")), readFile(harness.path("v2-\(cursor)")))
        let stream = try #require(line.firstMatch(of: digest)?.1)
        #expect(newest.firstMatch(of: digest)?.1 == stream, "exec without --protocol runs with the stream's digest: \(newest)")
        #expect(newest.replacing(digest, with: "") == oldest.replacing(digest, with: ""), "with --protocol 1, the same line but for its digest")
        #expect(oldest.firstMatch(of: digest).map { $0.1 != stream } == true, "a version 1 digest: \(oldest)")

        let mirror = try await harness.run("mirror", ["products", "--protocol", "1", "--output", harness.path("local.csv"), "--once"])
        #expect(mirror.status == 0, "\(mirror.error)")
        #expect(harness.document("local.csv") == harness.document(harness.watches[0].file))
        for command in [["mirror", "--output", harness.path("remote.csv")], ["exec", "--", "true"]] {
            let refused = try await harness.run(command[0], ["products", "--from", servers.urls, "--protocol", "1"] + command.dropFirst())
            #expect(refused.status == 1 && refused.error.contains("--protocol 1 with --from"), "\(command[0]): \(refused.error)")
        }
        version1.send(SIGTERM)
        version2.send(SIGTERM)
        sink.send(SIGKILL)
    }

    /// `exec --from --state` with the daemon stopped runs the command once per changeset of the
    /// stream, in order: killed with SIGKILL while a command runs (which then finishes and is
    /// recorded by its run process) and started again after more changesets were published, it
    /// runs each changeset's command exactly once, and its input is the changeset's line.
    @Test func execFromTheStreamRunsOncePerChangesetAcrossAKill() async throws {
        let servers = try await NATSServers()
        let harness = try await EndToEndHarness.running()
        let sink = try Self.startSink(harness, servers, number: 0)
        _ = try await Self.waitUntilPublished(harness, servers, "the first snapshot")
        for version in 1...3 {
            try await harness.save(ProductVersions.csv(version))
            try await harness.waitForVersion(UInt64(version))
        }
        var final = try await Self.waitUntilPublished(harness, servers, "three versions")
        try await harness.stopDaemon()
        // Each run logs its cursor when it starts and when it ends, and waits while `hold` exists.
        let script = """
            echo "$LISTSYNC_CURSOR" >> "$0/starts"
            cat > "$0/input-$LISTSYNC_CURSOR"
            while [ -e "$0/hold" ]; do sleep 0.05; done
            echo "$LISTSYNC_CURSOR" >> "$0/log"
            """
        func lines(_ file: String) -> [String] { readFile(harness.path(file)).split(separator: "\n").map(String.init) }
        let arguments = ["products", "--from", servers.urls, "--state", harness.path("exec.state"), "--", "/bin/sh", "-c", script, harness.directory]
        try FileContent.write("", to: harness.path("hold"))
        var exec = try harness.client("exec", arguments)
        try await eventually("the first changeset's command runs", timeout: .seconds(30)) { lines("starts").count == 1 }
        exec.send(SIGKILL)
        _ = try await exec.waitForExit()
        unlink(harness.path("hold"))
        try await eventually("the command finished after exec was killed") { lines("log").count == 1 }

        // More changesets while exec is down.
        try await harness.startDaemon()
        for version in 4...5 {
            try await harness.save(ProductVersions.csv(version))
            try await harness.waitForVersion(UInt64(version))
        }
        final = try await Self.waitUntilPublished(harness, servers, "five versions")
        try await harness.stopDaemon()
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()

        exec = try harness.client("exec", arguments)
        let expected = (1...final.seq).map { "\(Cursor(epoch: final.epoch, seq: $0))" }
        try await eventually("every changeset's command ran", timeout: .seconds(60)) { lines("log").count >= expected.count }
        try await Task.sleep(for: .milliseconds(500))
        #expect(lines("log") == expected, "each changeset's command succeeded once, in order: \(exec.errorOutput)")
        #expect(lines("starts") == expected, "no command ran twice: \(exec.errorOutput)")
        for cursor in expected {
            let input = readFile(harness.path("input-\(cursor)"))
            guard case .changeset(let changeset) = try MessageParser.serverMessage(ofLine: Array(input.utf8.dropLast())) else {
                Issue.record("the run for \(cursor) did not get a changeset: \(input)")
                continue
            }
            #expect("\(changeset.cursor)" == cursor)
        }
        #expect(!readFile(harness.path("exec.state.nats")).isEmpty, "exec recorded its place in the stream")
        #expect(exec.exitStatus == nil, "\(exec.errorOutput)")
    }
}
