import Foundation
import ListSyncClient
import ListSyncProtocol
import ListSyncSink
import NATSTransport

/// The three measures of the NATS benchmark (``ListSyncBenchmarks/NATS``) on one cluster.
struct NATSBenchmark {
    let cluster: NATSBenchmarkCluster
    /// Where `listsyncd` and `listsync` are.
    let binaries: URL
    let scratch: URL

    /// The subject of `stream`: one stream per measure, and subjects of two streams must not
    /// overlap.
    static func subject(of stream: String) -> String { "listsync.\(stream.lowercased())" }

    /// A directory of its own for a measure.
    private func directory(_ name: String) throws -> URL {
        let url = self.scratch.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `listsync sink nats products` into `stream` (R3) from `daemon`, its log in the daemon's
    /// directory.
    private func startSink(_ daemon: LatencyDaemon, stream: String) throws -> Process {
        try self.listsync(
            ["sink", "nats", "products", "--socket", daemon.socketPath, "--stream", stream, "--subject", Self.subject(of: stream), "--replicas", "3"]
                + self.cluster.urls.flatMap { ["--server", $0] },
            log: daemon.directory.appendingPathComponent("sink.log"))
    }

    /// Starts `listsync ARGUMENTS`, its output and errors in `log`.
    private func listsync(_ arguments: [String], log: URL) throws -> Process {
        let process = Process()
        process.executableURL = self.binaries.appendingPathComponent("listsync")
        process.arguments = arguments
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// A connection to the cluster, made on the thread pool.
    private func connect(_ name: String) async throws -> NATSConnection {
        try await JetStreamBlocking.connect(.init(servers: self.cluster.urls, name: name))
    }

    /// The envelope of the subject's last message in `stream`; `nil` while there is none (or no
    /// stream yet).
    private static func last(in stream: String, on connection: NATSConnection) async -> JetStreamEnvelope? {
        let message: NATSMessage?? = try? await JetStreamBlocking.run { try connection.lastMessage(in: stream, subject: Self.subject(of: stream)) }
        guard case .some(.some(let last)) = message else { return nil }
        return JetStreamEnvelope(headers: last.headers)
    }

    /// From the start of the sink to the stream's last message being the daemon's whole snapshot
    /// of a `rows`-row watch.
    func initialPublish(rows: Int) async throws -> Duration {
        let directory = try self.directory("initial")
        let file = try LatencyFile(url: directory.appendingPathComponent("products.csv"), rows: rows)
        let daemon = try await LatencyDaemon(
            binary: self.binaries.appendingPathComponent("listsyncd"), directory: directory, watchedFile: file.url,
            settleAfterClose: .milliseconds(20))
        defer { daemon.stop() }
        let client = ListSyncClient(configuration: ClientConfiguration(socketPath: daemon.socketPath, reconnect: .never))
        guard let cursor = try await client.watches().first?.cursor else {
            throw LatencySubscribers.Failure(description: "the daemon has no version of the \(rows)-row list")
        }
        let connection = try await self.connect("benchmark initial publish")
        let started = ContinuousClock.now
        let sink = try self.startSink(daemon, stream: "INITIAL")
        defer { sink.terminate() }
        let deadline = started + .seconds(600)
        while ContinuousClock.now < deadline {
            if let last = await Self.last(in: "INITIAL", on: connection), last.kind == .snapshot, last.cursor == cursor, last.completesCursor {
                return ContinuousClock.now - started
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw LatencySubscribers.Failure(description: "the snapshot was not published in 600 s; see \(directory.path)/sink.log")
    }

    /// `count` publishes of a one-row changeset line into an R3 stream, each timed until
    /// acknowledged.
    func acknowledgements(count: Int) async throws -> [Duration] {
        let connection = try await self.connect("benchmark acknowledgements")
        return try await JetStreamBlocking.run {
            try connection.ensureStream(NATSStreamSettings(name: "ACKS", subjects: [Self.subject(of: "ACKS")], replicas: 3))
            let line = Array(#"{"type":"changeset","watch":"products","cursor":"00000000000000aa:1","prev_seq":0,"stages":[{"updated":[[0,{"value":{"sku":"SKU7","name":"item number 7","price":"7.1","category":"category 7"},"hash":"0123456789abcdef0123456789abcdef"}]]}],"digest":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}"#.utf8) + [10]
            var expected: UInt64 = 0
            var samples: [Duration] = []
            for number in 1...count {
                let envelope = JetStreamEnvelope(
                    watch: "products", cursor: Cursor(epoch: Epoch(rawValue: 0xaa), seq: UInt64(number)), kind: .changeset, part: 1, parts: 1,
                    reset: false, after: 0, layout: JetStreamWatchLayout(format: "csv", sectioned: false, key: ["sku"]))
                let started = ContinuousClock.now
                let acknowledgement = try connection.publish(
                    line[...], to: Self.subject(of: "ACKS"), of: "ACKS", messageID: envelope.messageID, expectedLastSubjectSequence: expected,
                    headers: envelope.headers)
                samples.append(ContinuousClock.now - started)
                expected = acknowledgement.sequence
            }
            return samples
        }
    }

    /// Arrival instants of changesets, in order, from one side.
    private final class Arrivals: @unchecked Sendable {
        private let lock = NSLock()
        private var instants: [ContinuousClock.Instant] = []

        func add() {
            let now = ContinuousClock.now
            self.lock.withLock { self.instants.append(now) }
        }

        var all: [ContinuousClock.Instant] { self.lock.withLock { self.instants } }
    }

    /// `listsync mirror products --from … --output FILE` reading `stream`, its log next to the
    /// file.
    private func startMirror(stream: String, output: URL) throws -> Process {
        try self.listsync(
            ["mirror", "products", "--from", self.cluster.urls.joined(separator: ","), "--stream", stream, "--subject", Self.subject(of: stream), "--output", output.path],
            log: output.deletingLastPathComponent().appendingPathComponent("mirror.log"))
    }

    /// How long after a socket subscriber had each changeset a stream follower had applied it,
    /// and a `listsync mirror --from` process's file was equal to the saved file.
    struct Lags {
        var follower: [Duration] = []
        var mirrorFile: [Duration] = []
    }

    /// `edits` one-row edits of a 10k-row watch: for each, how long after a socket subscriber
    /// had the changeset a stream follower in this process had applied it, and a
    /// `listsync mirror --from` process's file (polled every millisecond) equalled the saved file.
    func mirrorLag(edits: Int) async throws -> Lags {
        let directory = try self.directory("lag")
        var file = try LatencyFile(url: directory.appendingPathComponent("products.csv"), rows: 10_000)
        let daemon = try await LatencyDaemon(
            binary: self.binaries.appendingPathComponent("listsyncd"), directory: directory, watchedFile: file.url,
            settleAfterClose: .milliseconds(20))
        defer { daemon.stop() }
        let sink = try self.startSink(daemon, stream: "LAG")
        defer { sink.terminate() }
        let connection = try await self.connect("benchmark follower")
        let deadline = ContinuousClock.now + .seconds(120)
        while await Self.last(in: "LAG", on: connection) == nil {
            guard ContinuousClock.now < deadline else { throw LatencySubscribers.Failure(description: "the sink published nothing; see \(directory.path)/sink.log") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let (socket, stream) = (Arrivals(), Arrivals())
        let ready = (Arrivals(), Arrivals())
        let socketPath = daemon.socketPath
        let subscriber = Task {
            let client = ListSyncClient(configuration: ClientConfiguration(socketPath: socketPath, clientName: "nats benchmark"))
            try await client.withMirror(of: "products") { updates in
                for try await update in updates {
                    switch update.event {
                    case .changeset: socket.add()
                    case .snapshot where update.isCurrent: ready.0.add()
                    default: break
                    }
                }
            }
        }
        defer { subscriber.cancel() }
        let follower = Task {
            try await JetStreamFollower(connection: connection, stream: "LAG", subject: Self.subject(of: "LAG")).follow(from: MirroredList(watch: "products"), after: 0) { update in
                switch update {
                case .changeset: stream.add()
                case .caughtUp: ready.1.add()
                default: break
                }
                return true
            }
        }
        defer { follower.cancel() }
        let remote = directory.appendingPathComponent("remote.csv")
        let mirror = try self.startMirror(stream: "LAG", output: remote)
        defer { mirror.terminate() }
        var polled = PolledFile(path: remote.path)
        let first = try Data(contentsOf: file.url)
        try await Self.wait(until: "both have the list, and the mirror's file equals it (see \(directory.path)/mirror.log)") {
            polled.refresh()
            return !ready.0.all.isEmpty && !ready.1.all.isEmpty && polled.contents == first
        }
        var equalAt: [ContinuousClock.Instant] = []
        for edit in 0..<edits {
            try file.prepareEdit(edit)
            try file.rename()
            let saved = try Data(contentsOf: file.url)
            var equal: ContinuousClock.Instant?
            try await Self.wait(until: "edit \(edit) arrives on every side") {
                if equal == nil {
                    polled.refresh()
                    if polled.contents == saved { equal = ContinuousClock.now }
                }
                return socket.all.count > edit && stream.all.count > edit && equal != nil
            }
            equalAt.append(equal ?? ContinuousClock.now)
        }
        return Lags(follower: zip(socket.all, stream.all).map { $1 - $0 }, mirrorFile: zip(socket.all, equalAt).map { $1 - $0 })
    }

    private static func wait(until what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw LatencySubscribers.Failure(description: "timed out: \(what)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
