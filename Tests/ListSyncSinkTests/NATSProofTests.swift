import Foundation
import Glibc
import ListSyncProtocol
import ListSyncTestSupport
import Testing

/// The proof of issue #21 in one test: a 3-node cluster, random edits, kill -9 of the sink
/// (twice), of the daemon (once, with an edit while it is down) and of the stream leader's
/// server (restarted later); a mirror fed only by the stream equals the file and `listsync
/// snapshot`; nats-py, an independent client, finds every cursor of the epoch once; a late
/// consumer rebuilds the list with the daemon stopped.
extension NATSSinkTests {
    /// How long the edits go on: `LISTSYNC_NATS_PROOF_SECONDS` (30 for the issue's proof), 10 by
    /// default so that the test stays under a minute in CI.
    static let proofSeconds = getenv("LISTSYNC_NATS_PROOF_SECONDS").flatMap { Int(String(cString: $0)) } ?? 10

    /// The nats-py audit: reads every message of the subject with `get_msg` and prints, as
    /// JSON, the number of messages, how many `Nats-Msg-Id`s are missing or repeated, the
    /// cursors of the snapshots and, per epoch, the sequence numbers of the changesets in stream
    /// order (one per line: the first part of a line split in parts).
    static let natsPyAudit = """
        import asyncio, json, sys
        import nats
        from nats.js.errors import NotFoundError

        async def main(servers, stream, subject):
            connection = await nats.connect(servers=servers.split(","))
            jetstream = connection.jetstream()
            state = (await jetstream.stream_info(stream)).state
            ids, snapshots, changesets, messages = [], [], {}, 0
            for sequence in range(state.first_seq, state.last_seq + 1):
                try:
                    message = await jetstream.get_msg(stream, sequence)
                except NotFoundError:
                    continue
                if message.subject != subject:
                    continue
                messages += 1
                headers = message.headers or {}
                ids.append(headers.get("Nats-Msg-Id"))
                if headers.get("ListSync-Part", "1/1").split("/")[0] != "1":
                    continue
                cursor = headers["ListSync-Cursor"]
                if headers["ListSync-Type"] == "snapshot":
                    snapshots.append(cursor)
                elif headers.get("ListSync-Chunk", "0") == "0":
                    # A changeset once: at protocol version 2 its later parts have ListSync-Chunk 1, 2, …
                    epoch, seq = cursor.split(":")
                    changesets.setdefault(epoch, []).append(int(seq))
            await connection.close()
            present = [i for i in ids if i is not None]
            print(json.dumps({"messages": messages, "missing_ids": len(ids) - len(present),
                              "repeated_ids": len(present) - len(set(present)),
                              "snapshots": snapshots, "changesets": changesets}))

        asyncio.run(main(*sys.argv[1:4]))
        """

    /// What the nats-py audit printed.
    struct StreamAudit: Decodable {
        let messages: Int
        let missing_ids: Int
        let repeated_ids: Int
        let snapshots: [String]
        let changesets: [String: [UInt64]]
    }

    @Test(.timeLimit(.minutes(3))) func proofOnAClusterWithEveryKill() async throws {
        let servers = try await NATSServers(count: 3)
        var generator = SplitMix(seed: 2121)
        let header = SinkCrashTests.headers[0]
        let harness = try await Self.harnessWithRandomList(header, using: &generator)
        var starts = 0
        var sink = try Self.startSink(harness, servers, number: starts, extra: ["--replicas", "3", "--snapshot-every", "16"])
        _ = try await Self.waitUntilPublished(harness, servers, "the first snapshot")
        // A mirror fed only by the stream, following it through everything.
        let mirror = try harness.client("mirror", ["products", "--from", servers.urls, "--output", harness.path("remote.csv")])

        let seconds = Double(Self.proofSeconds)
        let clock = ContinuousClock()
        let begin = clock.now
        func elapsed() -> Double {
            let (whole, attoseconds) = (clock.now - begin).components
            return Double(whole) + Double(attoseconds) / 1e18
        }
        var sinkKills = 0
        var daemonKilled = false
        var killedLeader: Int?
        var leaderRestarted = false
        var edits = 0
        func restartSink() async throws {
            sink.send(SIGKILL)
            _ = try await sink.waitForExit()
            sinkKills += 1
            starts += 1
            sink = try Self.startSink(harness, servers, number: starts, extra: ["--replicas", "3", "--snapshot-every", "16"])
        }
        while elapsed() < seconds {
            try await SaveStrategy.writeTemporaryAndRename.save(SinkCrashTests.version(header, using: &generator), to: harness.watched, scratch: harness.directory)
            edits += 1
            let progress = elapsed() / seconds
            if sinkKills == 0, progress > 0.15 { try await restartSink() }
            if killedLeader == nil, progress > 0.3 {
                let leader = try await Self.leader(servers)
                let index = try #require(servers.nodes.firstIndex { $0.name == leader }, "a leader among \(servers.nodes.map(\.name)): \(String(describing: leader))")
                try await servers.kill(index)
                killedLeader = index
            }
            if !daemonKilled, progress > 0.45 {
                // Once the sink follows the daemon (a sink's first connection must work).
                try await eventually("the sink is subscribed", timeout: .seconds(30)) {
                    readFile(harness.path("sink-\(starts).err")).contains("subscribed to products")
                }
                harness.daemon?.send(SIGKILL)
                _ = try await harness.daemon?.waitForExit()
                try await SaveStrategy.writeTemporaryAndRename.save(SinkCrashTests.version(header, using: &generator), to: harness.watched, scratch: harness.directory)
                edits += 1
                try await harness.startDaemon()
                daemonKilled = true
            }
            if sinkKills == 1, progress > 0.6 { try await restartSink() }
            if let killedLeader, !leaderRestarted, progress > 0.75 {
                try await servers.start(killedLeader)
                leaderRestarted = true
            }
            #expect(sink.exitStatus == nil, "the sink runs: \(readFile(harness.path("sink-\(starts).err")))")
            try await Task.sleep(for: .milliseconds(60 + Int(generator.next() % 200)))
        }
        #expect(sinkKills == 2 && daemonKilled && leaderRestarted, "every kill happened (\(edits) edits in \(Self.proofSeconds) s)")

        let final = try await Self.waitUntilPublished(harness, servers, "after \(edits) edits and every kill")
        let snapshot = try await harness.run("snapshot", ["products", "--output-format", "csv"])
        #expect(snapshot.status == 0, "\(snapshot.error)")
        try await eventually("the mirror fed by the stream reaches \(final)", timeout: .seconds(60)) {
            readFile(harness.path("remote.csv")) == snapshot.output
        }
        #expect(harness.document("remote.csv") == harness.document(harness.watches[0].file), "the mirror equals the file")
        #expect(mirror.exitStatus == nil, "the mirror followed the stream throughout: \(mirror.errorOutput)")

        // The independent audit, with nats-py.
        let python = try harness.process("/usr/bin/env", ["python3", "-c", Self.natsPyAudit, servers.urls, Self.stream, Self.subject])
        #expect(try await python.waitForExit(timeout: .seconds(60)) == 0, "\(python.errorOutput)")
        let audit = try JSONDecoder().decode(StreamAudit.self, from: Data(python.output.utf8))
        #expect(audit.missing_ids == 0 && audit.repeated_ids == 0, "every message has its own Nats-Msg-Id: \(audit.missing_ids) missing, \(audit.repeated_ids) repeated")
        let epoch = "\(final.epoch)"
        let firstSnapshot = try #require(audit.snapshots.compactMap(Cursor.init).first { "\($0.epoch)" == epoch }, "a snapshot of the epoch: \(audit.snapshots)")
        let changesets = audit.changesets[epoch] ?? []
        #expect(changesets == Array((firstSnapshot.seq + 1)...final.seq), "every changeset cursor of the epoch once, in order, no gap: \(changesets) after \(firstSnapshot)")
        #expect(audit.changesets.count == 1, "one epoch: \(audit.changesets.keys.sorted())")
        #expect(changesets.count >= edits / 2, "\(changesets.count) changesets for \(edits) edits")

        // A late consumer, started after the daemon is stopped, rebuilds the list.
        try await harness.stopDaemon()
        sink.send(SIGKILL)
        let late = try await harness.run("mirror", ["products", "--from", servers.urls, "--output", harness.path("late.csv"), "--once"])
        #expect(late.status == 0, "\(late.error)")
        #expect(readFile(harness.path("late.csv")) == snapshot.output, "the late consumer's list is what `listsync snapshot` printed")
        let lateLines = try harness.client("subscribe", ["products", "--from", servers.urls, "--format", "ndjson"])
        _ = try await Self.lines(of: lateLines, reaching: final, "a late subscriber")
    }
}
