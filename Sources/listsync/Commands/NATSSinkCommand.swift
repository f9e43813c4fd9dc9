import ArgumentParser
import ListSyncClient
import ListSyncSink
import NATSTransport

/// `listsync sink nats WATCH --server nats://HOST:PORT …`.
struct NATSSinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nats",
        abstract: "Publish a watch's snapshots and changesets into a NATS JetStream stream.",
        discussion: """
            Every snapshot and changeset the daemon sends is published as the same protocol lines \
            (at protocol version 2 unless --protocol 1 is given, ListSync-Protocol; a snapshot \
            chunk by chunk as it arrives, and a changeset over 256 KiB as its parts, one message \
            each, ListSync-Chunk; a line larger than the server's max_payload split into byte \
            parts) to the watch's subject, \
            with the headers Nats-Msg-Id, ListSync-Cursor, ListSync-Type and ListSync-Part \
            (docs/PROTOCOL.md, "The NATS transport"). Each publish expects the subject's last \
            sequence as the sink last saw it, and at start the sink reads the subject's last \
            message and resumes from its cursor: a restarted sink, or a second one, never \
            publishes a gap, a duplicate or a message out of order. A new epoch, or a sink that \
            fell behind the daemon's history, publishes a snapshot marked ListSync-Reset.

            The stream is created when missing (file storage, --replicas copies, no server-side \
            byte or age limit); an existing one is used as it is. --max-bytes and --max-age bound \
            the stream from the sink: after a publish that leaves it over a bound (and for \
            --max-age on a timer too, so an idle stream is trimmed), the watch's \
            subject is purged below the first message of its latest complete snapshot (other \
            subjects of a shared stream are left alone), so the latest snapshot and the \
            changesets after it always stay; when they alone are over the bound the sink says so \
            once and keeps them. \
            The sink rebuilds the list from the stream at start (from its latest snapshot) and \
            publishes it again as a snapshot every --snapshot-every changesets; every message \
            names the stream sequence of the latest complete snapshot (ListSync-Snapshot), \
            where a reader without a list starts. \
            Exit status: 0 the watch was removed, 1 usage error (no such watch), 2 daemon or \
            NATS unreachable at start, 3 NATS kept failing.
            """
    )

    @Argument(help: "The watch's name.", completion: WatchNameCompletion.kind)
    var name: String

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("server"), help: ArgumentHelp("A NATS server, nats://HOST:PORT; repeat for the servers of a cluster.", valueName: "url"))
    var servers: [String] = []

    @OptionGroup var nats: NATSStreamOptions

    @OptionGroup var protocolVersion: ProtocolOption

    @Option(help: ArgumentHelp("How many servers keep a copy of a stream the sink creates (1, 3 or 5).", valueName: "n"))
    var replicas = 1

    @Option(name: .customLong("max-bytes"), help: ArgumentHelp("The most bytes the stream should hold: older messages of the watch than its latest snapshot are purged, never that snapshot or the changesets after it. Default: no limit.", valueName: "bytes"))
    var maximumBytes: UInt64?

    @Option(name: .customLong("max-age"), help: ArgumentHelp("How old, in seconds, the stream's first message may be: older messages of the watch than its latest snapshot are purged, never that snapshot or the changesets after it. Default: no limit.", valueName: "seconds"))
    var maximumAge: Int64?

    @Option(
        name: .customLong("snapshot-every"),
        help: ArgumentHelp("Publish the whole list again as a snapshot after this many changesets, so that a reader starting without a list reads at most that many changesets after the latest snapshot (0: only when the daemon sends one).", valueName: "n"))
    var snapshotInterval = 1000

    func validate() throws {
        guard !self.servers.isEmpty else { throw ValidationError("give at least one --server nats://HOST:PORT") }
        if let problem = NATSStreamOptions.urlProblem(in: self.servers) { throw ValidationError(problem) }
        guard [1, 3, 5].contains(self.replicas) else { throw ValidationError("--replicas must be 1, 3 or 5") }
        guard self.snapshotInterval >= 0 else { throw ValidationError("--snapshot-every must be 0 or more") }
        guard (self.maximumAge ?? 1) > 0 else { throw ValidationError("--max-age must be 1 or more seconds") }
    }

    func run() async throws {
        try await ClientFailure.exitingOnFailure {
            let client = ListSyncClient(configuration: self.protocolVersion.applied(to: self.connection.configuration(reconnect: ReconnectPolicy(initialAttempts: 1))))
            guard try await client.watches().contains(where: { $0.name == self.name }) else {
                throw ClientFailure.client(.unknownWatch(self.name))
            }
            let subject = self.nats.subjectName(of: self.name)
            let stream = NATSStreamSettings(
                name: self.nats.streamName(of: self.name), subjects: [subject], replicas: self.replicas)
            let connection = try await self.nats.connect(to: self.servers, as: "listsync sink nats \(self.name)")
            // The daemon answered once: from now on the sink reconnects for as long as it takes,
            // also when a conflict makes it subscribe anew while the daemon restarts.
            // Snapshots chunk by chunk: each is published as it arrives, never held whole.
            // Every version the daemon speaks unless --protocol names one: the stream's lines are
            // the agreed version's (version 2: the daemon computes no version 1 digest for it).
            var configuration = self.protocolVersion.applied(to: self.connection.configuration(reconnect: ReconnectPolicy()))
            configuration.snapshotDelivery = .chunks
            let following = ListSyncClient(configuration: configuration)
            let sink = JetStreamSink(
                client: following, watch: self.name, connection: connection, stream: stream, subject: subject,
                snapshotInterval: self.snapshotInterval,
                retention: JetStreamRetention(maximumBytes: self.maximumBytes, maximumAgeSeconds: self.maximumAge))
            let name = self.name
            do {
                _ = try await sink.run { event in
                    if let line = Self.line(for: event, watch: name) { OutputWriter.writeStandardError(line) }
                }
            } catch let error as NATSError {
                throw ClientFailure.data("\(error)")
            } catch let error as JetStreamParts.HeadersTooLarge {
                throw ClientFailure.data("\(error)")
            }
        }
    }

    /// The log line of an event: everything but the changesets published.
    static func line(for event: SinkEvent, watch: String) -> String? {
        switch event {
        case .replaced(let cursor, let rows): return "listsync: \(watch): published the snapshot at \(cursor) (\(rows) records)\n"
        case .resynchronizing(let reason, _): return "listsync: \(watch): \(reason)\n"
        case .applied, .refilled: return nil
        case .status(let status) where status.state != .ok:
            let problem = status.error.map { ": \($0)" } ?? ""
            return "listsync: \(watch) is \(status.state.rawValue)\(problem); nothing is published until it has a new version\n"
        case .subscribed, .status, .disconnected, .warning: return SinkOptions.line(for: event, watch: watch)
        }
    }
}
