import ArgumentParser
import ListSyncClient
import ListSyncProtocol
import ListSyncSink

/// The options every sink shares: the watch, the daemon, how the table is laid out.
struct SinkOptions: ParsableArguments {
    @Argument(help: "The watch's name.", completion: WatchNameCompletion.kind)
    var name: String

    @OptionGroup var connection: ConnectionOptions

    @OptionGroup var source: NATSSourceOptions

    @Option(help: ArgumentHelp("The table's name. Default: the watch's name.", valueName: "name"))
    var table: String?

    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "A column (CSV) or top-level member (JSON) of the watch's key, the table's primary key; repeat for a composite key. Default: the watch's key as the daemon names it (the surrogate listsync_row for a watch without one); a --key that is not the watch's key is a usage error.",
            valueName: "field"))
    var key: [String] = []

    @Option(
        name: .customLong("column"),
        help: ArgumentHelp("A top-level member of JSON records to project into a column of its own; repeatable.", valueName: "member"))
    var columns: [String] = []

    @Flag(help: "After each commit, read the table back and compare its digest with the daemon's; resynchronize on a mismatch.")
    var verify = false

    @Flag(
        name: .customLong("take-over-table"),
        help: ArgumentHelp(
            "Let the sink replace the contents (and columns) of a table it did not make: a table of the same name that listsync_tables does not record as this watch's (a user's own, or another watch's sink's). Without it such a table is left as it is and the sink exits 1. Once taken, the table is the watch's."))
    var takeOverTable = false

    /// Asks the daemon (or, with `--from`, the stream's last message) how the watch reads
    /// (format, sections, key) and runs the sink into the store `open` makes for that layout
    /// (once: the store, and the lock it holds on the table, last the whole run; a new layout is
    /// set on it).
    func run(_ open: (SinkTableLayout) throws(SinkError) -> any SinkStore) async throws {
        try await ClientFailure.exitingOnFailure {
            let (source, describe) = try await self.watchSource()
            var store: (any SinkStore)?
            // Once more each time the watch needs another layout (a reload changed its format or
            // sections): the table is recreated by the snapshot that follows.
            while true {
                let watch = try await describe()
                let layout = SinkTableLayout(
                    table: self.table ?? self.name, kind: .init(format: watch.format), sectioned: watch.sectioned,
                    key: try self.primaryKey(watchKey: watch.key), projected: self.columns)
                let ending: SinkRunner.Ending
                do {
                    let current = try store ?? open(layout)
                    current.layout = layout
                    store = current
                    let runner = SinkRunner(source: source, watch: self.name, store: current, verify: self.verify)
                    ending = try await NATSStreamOptions.readingStream {
                        try await runner.run { event in
                            if let line = Self.line(for: event, watch: self.name) { OutputWriter.writeStandardError(line) }
                        }
                    }
                } catch let error as SinkError {
                    throw error.code == .refused ? ClientFailure.usage(error.message) : ClientFailure.data("\(error)")
                }
                guard ending == .layoutChanged else { return }
                OutputWriter.writeStandardError("listsync: \(self.name): the watch reads its file differently now; recreating the table\n")
            }
        }
    }

    /// Where the sink's list comes from — the daemon, or with `--from` the watch's stream — and
    /// how to ask how the watch reads its file now.
    private func watchSource() async throws -> (SinkSource, () async throws -> JetStreamWatchLayout) {
        guard let from = self.source.from else {
            let client = ListSyncClient(configuration: self.connection.configuration(reconnect: ReconnectPolicy(initialAttempts: 1)))
            return (.daemon(client), {
                guard let summary = try await client.watches().first(where: { $0.name == self.name }) else {
                    throw ClientFailure.client(.unknownWatch(self.name))
                }
                return JetStreamWatchLayout(summary)
            })
        }
        let follower = try await self.source.nats.follower(of: self.name, from: from, as: "listsync sink \(self.name)")
        return (.stream(follower), {
            try await NATSStreamOptions.readingStream {
                guard let layout = try await follower.layout() else {
                    throw ClientFailure.data(
                        "the stream \(follower.stream) has no message of \(self.name) that says how the watch reads its file (ListSync-Format): it is empty, or its last message was published by an older `listsync sink nats`")
                }
                return layout
            }
        })
    }

    /// The table's primary key: the watch's key (`watchKey`, as the daemon's `list` names it).
    /// `--key`, when given, must name the same fields (`sku` and `/sku` alike): a sink keyed
    /// otherwise would fail on the first repeated value, or merge records the daemon tells apart.
    func primaryKey(watchKey: [String]) throws(ClientFailure) -> [String] {
        let key = SinkTableLayout.primaryKey(ofWatchKey: watchKey)
        guard !self.key.isEmpty else { return key }
        func spelled(_ fields: [String]) -> [String] { fields.map { SinkTableLayout.column(ofKeyField: $0) ?? $0 } }
        guard spelled(self.key) == spelled(watchKey) else {
            let actual = watchKey.isEmpty ? ", which has none" : " (\(watchKey.joined(separator: ", ")))"
            throw .usage("--key \(self.key.joined(separator: ", ")) is not the key of the watch \(self.name)\(actual); leave --key out to take the watch's key")
        }
        return key
    }

    /// The log line of an event: everything but the commits of changesets.
    static func line(for event: SinkEvent, watch: String) -> String? {
        switch event {
        case .replaced(let cursor, let rows): return "listsync: \(watch): table replaced by the snapshot at \(cursor) (\(rows) rows)\n"
        case .refilled(let cursor, let rows):
            return "listsync: \(watch): table refilled by the changeset at \(cursor): it touched most rows; \(rows) rows written anew in its transaction\n"
        case .subscribed(let subscription): return HumanUpdateRenderer.subscribed(subscription)
        case .resynchronizing(let reason, let count): return "listsync: \(watch): resynchronizing (\(count) so far): \(reason)\n"
        case .status(let status) where status.state != .ok:
            let problem = status.error.map { ": \($0)" } ?? ""
            return "listsync: \(watch) is \(status.state.rawValue)\(problem); the table keeps its last good version\n"
        case .disconnected(let error, let retryIn): return HumanUpdateRenderer.reconnecting("\(error)", in: retryIn)
        case .warning(let warning): return "listsync: \(watch): \(warning)\n"
        case .applied, .status: return nil
        }
    }
}
