import Foundation
import Glibc
import ListFormats
import ListSyncClient
import ListSyncProtocol
import ListSyncTestSupport
import NATSTransport
import Testing

@testable import ListSyncSink

/// `listsync sink nats` and `listsync mirror --from` against real `nats-server` processes with
/// JetStream file storage in a scratch directory: the stream holds each cursor once, in order,
/// across kill -9 of the sink and a second sink racing it, and a mirror rebuilds the list from
/// the stream alone.
@Suite(
    .serialized, .timeLimit(.minutes(5)),
    .enabled(if: NATSServers.isInstalled, "nats-server is not installed (scripts/bootstrap installs it): the NATS tests are skipped"))
struct NATSSinkTests {
    static let stream = "LISTSYNC_products"

    /// The repository's `examples/python/mirror.py`.
    static let pythonMirror: String = {
        var path = "\(#filePath)"
        for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
        return path + "/examples/python/mirror.py"
    }()
    static let subject = "listsync.products"

    /// Every message of the watch's subject (or of `subject` of `stream`), read with an ordered consumer through the wrapper
    /// on a thread of its own (nats.c blocks), read again until its last message completes its
    /// cursor: a sink may be publishing a snapshot again, chunk by chunk, when the test looks.
    static func messages(_ servers: NATSServers, stream: String = Self.stream, subject: String = Self.subject) async throws -> [NATSMessage] {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let messages = try await Self.messagesNow(servers, stream: stream, subject: subject)
            let complete = messages.last.flatMap { JetStreamEnvelope(headers: $0.headers) }.map(\.completesCursor) ?? true
            if complete || ContinuousClock.now > deadline { return messages }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Every message of `subject` of `stream` (the watch's) as it stands.
    private static func messagesNow(_ servers: NATSServers, stream: String, subject: String) async throws -> [NATSMessage] {
        try await NATSTransportTests.withConnection(servers) { connection in
            guard let last = try connection.lastMessage(in: stream, subject: subject) else { return [] }
            let subscription = try NATSOrderedSubscription(connection: connection, stream: stream, subject: subject, from: 1)
            var messages: [NATSMessage] = []
            while (messages.last?.streamSequence ?? 0) < last.streamSequence {
                guard let message = try subscription.next(timeoutMilliseconds: 10_000) else {
                    throw TestFailure("no message after \(messages.count), the last being \(last.streamSequence)")
                }
                messages.append(message)
            }
            return messages
        }
    }

    /// The envelope of the subject's last message (through the wrapper, on a thread of its own).
    static func lastEnvelope(_ servers: NATSServers) async throws -> JetStreamEnvelope? {
        try await NATSTransportTests.withConnection(servers) { connection in
            try connection.lastMessage(in: Self.stream, subject: Self.subject).flatMap { JetStreamEnvelope(headers: $0.headers) }
        }
    }

    /// Checks the stream's messages as an independent reader would: unique `Nats-Msg-Id`s, parts
    /// in order, a snapshot first, then every cursor of the epoch once, each changeset
    /// following the line before it, ending at `final`; every line applies and verifies; every
    /// message at one of the protocol `versions` (the sink's default, 2, unless it was given
    /// `--protocol`). The list the lines build.
    @discardableResult
    static func audit(_ messages: [NATSMessage], endingAt final: Cursor, versions: Set<Int> = [2]) throws -> MirroredList {
        let ids = messages.compactMap { $0.headers["Nats-Msg-Id"] }
        #expect(ids.count == messages.count, "every message has a Nats-Msg-Id")
        #expect(Set(ids).count == ids.count, "no Nats-Msg-Id twice: \(ids.count - Set(ids).count) repeated")
        var assembly = JetStreamLineAssembly()
        var lines: [(JetStreamEnvelope, [UInt8], UInt64)] = []
        for message in messages {
            guard let envelope = JetStreamEnvelope(headers: message.headers) else {
                throw TestFailure("message \(message.streamSequence) has no ListSync headers: \(message.headers)")
            }
            #expect(envelope.watch == "products")
            #expect(versions.contains(envelope.protocolVersion), "message \(message.streamSequence) at protocol \(envelope.protocolVersion)")
            if let (complete, line) = assembly.add(message.payload, envelope: envelope) { lines.append((complete, line, message.streamSequence)) }
        }
        #expect(!assembly.isAssembling, "the last line is complete")
        guard let first = lines.first else { throw TestFailure("no line in the stream") }
        #expect(first.0.kind == .snapshot, "the stream starts with a snapshot")
        var seen = Set<Cursor>()
        var mirror = MirroredList(watch: "products")
        var parts = ChangesetPartAssembly(maximumBytes: 1 << 28)
        var previous: Cursor?
        for (envelope, line, place) in lines {
            // A snapshot published again is at the cursor of the changeset before it; a
            // snapshot's later chunks, and a changeset's later parts, at their first line's.
            let republished = (envelope.kind == .snapshot || envelope.chunk > 0) && envelope.cursor == previous
            #expect(republished || seen.insert(envelope.cursor).inserted, "cursor \(envelope.cursor) once (message \(place))")
            if envelope.kind == .changeset, envelope.chunk == 0, let previous {
                #expect(envelope.cursor.epoch == previous.epoch && envelope.cursor.seq == previous.seq + 1,
                        "changeset \(envelope.cursor) follows \(previous) (message \(place))")
            }
            previous = envelope.cursor
            for update in JetStreamFollower.apply(line, envelope: envelope, to: &mirror, parts: &parts, at: place) {
                if case .skipped(let reason, _) = update { Issue.record("\(reason)") }
            }
        }
        #expect(previous == final, "the stream ends at the daemon's cursor")
        // Every ListSync-Snapshot names the first part of a complete snapshot before it; only the
        // parts of the stream's first snapshot may name one that retention purged before it.
        let snapshotStarts = Set(messages.filter { JetStreamEnvelope(headers: $0.headers).map { $0.kind == .snapshot && $0.chunk == 0 && $0.part == 1 } ?? false }.map(\.streamSequence))
        let firstLineEnd = messages.firstIndex { JetStreamEnvelope(headers: $0.headers)?.completesCursor ?? false } ?? 0
        let purgedBefore = messages.first?.streamSequence ?? 0
        for (index, message) in messages.enumerated() {
            guard let named = message.headers["ListSync-Snapshot"].flatMap(UInt64.init) else { continue }
            let purged = index <= firstLineEnd && named < purgedBefore
            #expect(purged || (snapshotStarts.contains(named) && named <= message.streamSequence), "message \(message.streamSequence) names \(named)")
        }
        #expect(mirror.cursor == final)
        return mirror
    }

    /// Stops the daemon and kills `sink`; then `mirror --from` (the stream alone) equals the file.
    static func stopAndMirrorTheStream(_ harness: EndToEndHarness, _ servers: NATSServers, sink: ChildProcess) async throws {
        try await harness.stopDaemon()
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()
        let mirror = try await harness.run("mirror", ["products", "--from", servers.urls, "--output", harness.path("remote.csv"), "--once"])
        #expect(mirror.status == 0, "\(mirror.error)")
        #expect(harness.document("remote.csv") == harness.document(harness.watches[0].file))
    }

    /// Starts `listsync sink nats products` on `servers`, its output in `sink-NUMBER.err`.
    static func startSink(_ harness: EndToEndHarness, _ servers: NATSServers, number: Int, extra: [String] = []) throws -> ChildProcess {
        try ChildProcess(
            try EndToEndHarness.binary("listsync"),
            ["sink", "nats", "products", "--socket", harness.socketPath] + servers.nodes.flatMap { ["--server", $0.url] } + extra,
            outputPath: harness.path("sink-\(number).err"), errorPath: harness.path("sink-\(number).err"))
    }

    /// A harness whose watched file holds a random version with `header` (drawn from
    /// `generator`), its daemon started.
    static func harnessWithRandomList(_ header: [String], using generator: inout SplitMix) async throws -> EndToEndHarness {
        let harness = try EndToEndHarness()
        try FileContent.write(SinkCrashTests.version(header, using: &generator), to: harness.watched)
        try await harness.startDaemon()
        return harness
    }

    /// Waits until the subject's last message is at the daemon's cursor and ends its line (the
    /// last part of it, or a line in one message): the first part of a line in parts is
    /// published before the rest, so its cursor alone does not say the line is all there.
    static func waitUntilPublished(_ harness: EndToEndHarness, _ servers: NATSServers, _ what: String) async throws -> Cursor {
        var current: Cursor?
        do {
            try await eventually("the stream reaches the daemon's cursor (\(what))", timeout: .seconds(60)) {
                // Not before a sink has made the stream: nats-server 2.9.10 can crash (a nil
                // stream in jsMsgGetRequest) on a last-message request for a stream being created.
                // Its info says so (whichever sink made it: of two racing sinks, the one whose
                // snapshot the server took as a duplicate logs no publication).
                let made = try? await NATSTransportTests.withConnection(servers) { try $0.streamState(Self.stream) }
                guard made.flatMap({ $0 }) != nil else { return false }
                current = try await harness.watchSummaries().first?.cursor
                guard current != nil else { return false }
                // A cluster electing a leader answers with timeouts for a while.
                guard let last = try? await Self.lastEnvelope(servers) else { return false }
                return last.cursor == current && last.completesCursor
            }
        } catch {
            // What the sinks said, for the next reader of a failure.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: harness.directory)) ?? []
            let logs = names.filter { $0.hasPrefix("sink") }.sorted().map { name in
                "\(name): \(String(readFile(harness.path(name)).suffix(3000)))"
            }
            let last = (try? await Self.lastEnvelope(servers)).flatMap { $0 }.map { "\($0.cursor) part \($0.part)/\($0.parts)" }
            throw TestFailure("\(error); the daemon at \(String(describing: current)), the stream at \(last ?? "nothing")\n\(logs.joined(separator: "\n"))\nnats-server: \(String(servers.logs.suffix(3000)))")
        }
        return current ?? Cursor(epoch: Epoch(rawValue: 0), seq: 0)
    }

    /// Random edits with two sinks publishing at once, one of them killed with SIGKILL and
    /// restarted now and then, and the daemon killed once (an edit made while it is down): the stream holds every cursor once, in order, no Nats-Msg-Id
    /// twice, and its lines rebuild the file.
    @Test func sinksKilledAndRacingPublishEachCursorOnce() async throws {
        let servers = try await NATSServers()
        var generator = SplitMix(seed: 77)
        let header = SinkCrashTests.headers[0]
        let harness = try await Self.harnessWithRandomList(header, using: &generator)
        var starts = 0
        var sink = try Self.startSink(harness, servers, number: starts, extra: ["--snapshot-every", "4"])
        let racer = try Self.startSink(harness, servers, number: 99, extra: ["--snapshot-every", "4"])
        var kills = 0
        for edit in 0..<40 {
            try await SaveStrategy.writeTemporaryAndRename.save(SinkCrashTests.version(header, using: &generator), to: harness.watched, scratch: harness.directory)
            if let status = sink.exitStatus ?? racer.exitStatus {
                Issue.record("a sink exited \(status) at edit \(edit): \(readFile(harness.path("sink-\(starts).err")))\(readFile(harness.path("sink-99.err")))")
                return
            }
            if generator.next() % 4 == 0 {
                try await Task.sleep(for: .milliseconds(Int(generator.next() % 150)))
                sink.send(SIGKILL)
                _ = try await sink.waitForExit()
                kills += 1
                starts += 1
                sink = try Self.startSink(harness, servers, number: starts, extra: ["--snapshot-every", "4"])
            }
            if edit == 20 {
                // The daemon killed too, with an edit while it is down, once both sinks are
                // following it (a sink's first connection must work).
                try await eventually("both sinks are subscribed") {
                    [starts, 99].allSatisfy { readFile(harness.path("sink-\($0).err")).contains("subscribed to products") }
                }
                harness.daemon?.send(SIGKILL)
                _ = try await harness.daemon?.waitForExit()
                try await SaveStrategy.writeTemporaryAndRename.save(SinkCrashTests.version(header, using: &generator), to: harness.watched, scratch: harness.directory)
                try await harness.startDaemon()
            }
            try await Task.sleep(for: .milliseconds(Int(generator.next() % 120)))
        }
        let final = try await Self.waitUntilPublished(harness, servers, "after \(kills) kills")
        #expect(kills > 0)
        let messages = try await Self.messages(servers)
        let mirror = try Self.audit(messages, endingAt: final)
        let snapshots = messages.filter { $0.headers["ListSync-Type"] == "snapshot" }.count
        #expect(snapshots > 3, "the list is published again every 4 changesets: \(snapshots) snapshots")
        #expect(mirror.hasList, "the stream's lines rebuild the list, every digest verified")
        sink.send(SIGKILL)
        racer.send(SIGKILL)
    }

    /// With the daemon stopped, `snapshot --from`, `mirror --from` and the Python example's
    /// `--from-nats` rebuild the list from the stream alone, equal to what `listsync snapshot` printed; after more versions it resumes from its own state
    /// (the stream sequence it recorded) and is equal again.
    @Test func mirrorFromTheStreamWithTheDaemonStopped() async throws {
        let servers = try await NATSServers()
        let harness = try await EndToEndHarness.running()
        var sink = try Self.startSink(harness, servers, number: 0)
        for version in 1...3 {
            try await harness.save(ProductVersions.csv(version))
            try await harness.waitForVersion(UInt64(version))
        }
        _ = try await Self.waitUntilPublished(harness, servers, "three versions")
        let snapshot = try await harness.run("snapshot", ["products", "--output-format", "csv"])
        #expect(snapshot.status == 0, "\(snapshot.error)")
        try await harness.stopDaemon()

        let fromStream = try await harness.run("snapshot", ["products", "--from", servers.urls, "--output-format", "csv"])
        #expect(fromStream.status == 0, "\(fromStream.error)")
        #expect(fromStream.output == snapshot.output, "`snapshot --from` prints what the daemon's snapshot printed")

        let arguments = ["products", "--from", servers.urls, "--output", harness.path("remote.csv"), "--once"]
        let first = try await harness.run("mirror", arguments)
        #expect(first.status == 0, "\(first.error)")
        #expect(harness.document("remote.csv") == harness.document(harness.watches[0].file))
        #expect(readFile(harness.path("remote.csv")) == snapshot.output, "the mirror is what `listsync snapshot` printed")
        // The Python example, with nats-py, from the protocol's documentation alone.
        let python = try harness.process("/usr/bin/env", [
            "python3", Self.pythonMirror, "products", "--from-nats", servers.urls, "--output", harness.path("python.json"), "--once",
        ])
        #expect(try await python.waitForExit() == 0, "\(python.errorOutput)")
        #expect(harness.document("python.json") == harness.document(harness.watches[0].file), "\(python.errorOutput)")

        let place = readFile(harness.path(".remote.csv.listsync-state.nats"))
        #expect(!place.isEmpty, "the mirror recorded its place in the stream")

        // More versions while the mirror is down; it resumes from its state.
        try await harness.startDaemon()
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()
        sink = try Self.startSink(harness, servers, number: 1)
        try await harness.save(ProductVersions.csv(4))
        try await harness.waitForVersion(4)
        let final = try await Self.waitUntilPublished(harness, servers, "version 4")
        try await harness.stopDaemon()
        sink.send(SIGKILL)
        let second = try await harness.run("mirror", arguments)
        #expect(second.status == 0, "\(second.error)")
        #expect(harness.document("remote.csv") == harness.document(harness.watches[0].file))
        let recorded = try StateJournalFile.entries(harness.path(".remote.csv.listsync-state.nats"))
        #expect(recorded.count == 1 && recorded[0].hasSuffix(" \(final)"), "the state records the stream sequence and cursor \(final): \(recorded)")
        try Self.audit(try await Self.messages(servers), endingAt: final)
    }
}

extension NATSSinkTests {
    /// The name of the server leading the stream's replicas (through the wrapper, on a thread of its own).
    static func leader(_ servers: NATSServers) async throws -> String? {
        try await NATSTransportTests.withConnection(servers) { try $0.streamState(Self.stream)?.leader }
    }

    /// A 3-node cluster and an R3 stream: random edits, the sink killed with SIGKILL once and
    /// the stream leader's server killed (and restarted later): the stream still holds each
    /// cursor once, in order, and with the daemon stopped a mirror fed by the cluster equals
    /// the file.
    @Test func clusterWithTheLeaderKilled() async throws {
        let servers = try await NATSServers(count: 3)
        var generator = SplitMix(seed: 91)
        let header = SinkCrashTests.headers[1]
        let harness = try await Self.harnessWithRandomList(header, using: &generator)
        var sink = try Self.startSink(harness, servers, number: 0, extra: ["--replicas", "3"])
        _ = try await Self.waitUntilPublished(harness, servers, "the first snapshot")
        var killedLeader: Int?
        for edit in 0..<30 {
            try await SaveStrategy.writeTemporaryAndRename.save(SinkCrashTests.version(header, using: &generator), to: harness.watched, scratch: harness.directory)
            try await Task.sleep(for: .milliseconds(Int(generator.next() % 150)))
            if edit == 8 {
                let leader = try await Self.leader(servers)
                let index = try #require(servers.nodes.firstIndex { $0.name == leader }, "a leader among \(servers.nodes.map(\.name)): \(String(describing: leader))")
                try await servers.kill(index)
                killedLeader = index
            }
            if edit == 16 {
                sink.send(SIGKILL)
                _ = try await sink.waitForExit()
                sink = try Self.startSink(harness, servers, number: 1, extra: ["--replicas", "3"])
            }
            if edit == 24, let killedLeader { try await servers.start(killedLeader) }
            #expect(sink.exitStatus == nil, "the sink runs: \(readFile(harness.path("sink-0.err")))\(readFile(harness.path("sink-1.err")))")
        }
        let final = try await Self.waitUntilPublished(harness, servers, "after the leader was killed")
        try Self.audit(try await Self.messages(servers), endingAt: final)
        try await harness.stopDaemon()
        sink.send(SIGKILL)
        let mirror = try await harness.run("mirror", ["products", "--from", servers.urls, "--output", harness.path("remote.csv"), "--once"])
        #expect(mirror.status == 0, "\(mirror.error)")
        #expect(harness.document("remote.csv") == harness.document(harness.watches[0].file))
    }
}

extension NATSSinkTests {
    /// Servers that take at most 4 KiB per message: the snapshot of a larger list and its large
    /// changesets are published in parts (`ListSync-Part: i/n`), which a reader puts back
    /// together; a sink killed mid-way finishes a changeset's parts or starts a new snapshot.
    @Test func linesLargerThanTheMaximumPayloadGoInParts() async throws {
        let servers = try await NATSServers(maximumPayload: 4096)
        let harness = try EndToEndHarness()
        try FileContent.write(ProductVersions.bulk(rows: 300, nameLength: 30), to: harness.watched)
        try await harness.startDaemon()
        var sink = try Self.startSink(harness, servers, number: 0, extra: ["--snapshot-every", "2"])
        _ = try await Self.waitUntilPublished(harness, servers, "the first snapshot")
        for round in 1...6 {
            try await harness.save(ProductVersions.bulk(rows: 300 + round * 40, nameLength: 30 + round))
            if round == 2 {
                try await Task.sleep(for: .milliseconds(30))
                sink.send(SIGKILL)
                _ = try await sink.waitForExit()
                sink = try Self.startSink(harness, servers, number: round, extra: ["--snapshot-every", "2"])
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        let final = try await Self.waitUntilPublished(harness, servers, "the large changesets")
        let messages = try await Self.messages(servers)
        #expect(messages.contains { ($0.headers["ListSync-Part"].map { !$0.hasSuffix("/1") }) ?? false }, "some lines went in parts")
        #expect(messages.allSatisfy { $0.payload.count <= 4096 })
        try Self.audit(messages, endingAt: final)
        // The restarted sink rebuilt the list from the stream and kept publishing it again every
        // 2 changesets: the tail after the latest snapshot is at most 2 changesets long.
        let latest = try #require(messages.compactMap { JetStreamEnvelope(headers: $0.headers) }.last { $0.kind == .snapshot })
        #expect(final.seq - latest.cursor.seq <= 2, "the latest snapshot is at \(latest.cursor), the stream at \(final)")
        try await harness.stopDaemon()
        sink.send(SIGKILL)
        let mirror = try await harness.run("mirror", ["products", "--from", servers.urls, "--output", harness.path("remote.csv"), "--once"])
        #expect(mirror.status == 0, "\(mirror.error)")
        #expect(harness.document("remote.csv") == harness.document(harness.watches[0].file))
    }
}
