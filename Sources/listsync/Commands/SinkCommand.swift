import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import ListSyncClient
import ListSyncProtocol
import ListSyncSink

/// `listsync sink sqlite|postgres WATCH …`: keeps a database table equal to a watched list,
/// exactly once per cursor (the cursor commits with the rows).
struct SinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sink",
        abstract: "Keep a database table equal to a watched list.",
        discussion: """
            The table has one row per record; `ORDER BY listsync_order` (after the section's \
            position, for sectioned lists) gives the file's order. Each changeset's rows are \
            written with the watch's cursor (table listsync_cursors) in one transaction, and the \
            sink resumes from that cursor when it starts: nothing is skipped or applied twice. \
            A snapshot replaces the table's contents in one transaction. While the watched file is \
            invalid or missing the table keeps the last good version; when the watch is removed \
            from the daemon's configuration the sink says so and exits 0.

            Exit status: 0 the watch was removed, 1 usage or configuration error (no such watch), \
            2 daemon unreachable at start, 3 data or database error.
            """,
        subcommands: [SQLiteSinkCommand.self, PostgresSinkCommand.self]
    )
}

/// The options every sink shares: the watch, the daemon, how the table is laid out.
struct SinkOptions: ParsableArguments {
    @Argument(help: "The watch's name.")
    var name: String

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The table's name. Default: the watch's name.", valueName: "name"))
    var table: String?

    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "A column (CSV) or top-level member (JSON) of the watch's key: the table's primary key; repeat for a composite key. Default: the surrogate listsync_row.",
            valueName: "column"))
    var key: [String] = []

    @Option(
        name: .customLong("column"),
        help: ArgumentHelp("A top-level member of JSON records to project into a column of its own; repeatable.", valueName: "member"))
    var columns: [String] = []

    @Flag(help: "After each commit, read the table back and compare its digest with the daemon's; resynchronize on a mismatch.")
    var verify = false

    /// Asks the daemon how the watch reads (format, sections) and runs the sink into the store
    /// `open` makes for that layout.
    func run(_ open: (SinkTableLayout) throws(SinkError) -> any SinkStore) async throws {
        try await ClientFailure.exitingOnFailure {
            let client = ListSyncClient(configuration: self.connection.configuration(reconnect: ReconnectPolicy(initialAttempts: 1)))
            // Once more each time the watch needs another layout (a reload changed its format or
            // sections): the table is recreated by the snapshot that follows.
            while true {
                guard let summary = try await client.watches().first(where: { $0.name == self.name }) else {
                    throw ClientFailure.client(.unknownWatch(self.name))
                }
                let layout = SinkTableLayout(
                    table: self.table ?? self.name, kind: .init(format: summary.format), sectioned: summary.sectioned,
                    key: self.key, projected: self.columns)
                let ending: SinkRunner.Ending
                do {
                    let runner = SinkRunner(client: client, watch: self.name, store: try open(layout), verify: self.verify)
                    ending = try await runner.run { event in
                        if let line = Self.line(for: event, watch: self.name) { OutputWriter.writeStandardError(line) }
                    }
                } catch let error as SinkError {
                    throw ClientFailure.data("\(error)")
                }
                guard ending == .layoutChanged else { return }
                OutputWriter.writeStandardError("listsync: \(self.name): the watch reads its file differently now; recreating the table\n")
            }
        }
    }

    /// The log line of an event: everything but the commits of changesets.
    static func line(for event: SinkEvent, watch: String) -> String? {
        switch event {
        case .replaced(let cursor, let rows): return "listsync: \(watch): table replaced by the snapshot at \(cursor) (\(rows) rows)\n"
        case .resuming(let cursor): return "listsync: \(watch): resuming from \(cursor)\n"
        case .resynchronizing(let reason, let count): return "listsync: \(watch): resynchronizing (\(count) so far): \(reason)\n"
        case .status(let status) where status.state != .ok:
            let problem = status.error.map { ": \($0)" } ?? ""
            return "listsync: \(watch) is \(status.state.rawValue)\(problem); the table keeps its last good version\n"
        case .disconnected(let error, _): return "listsync: \(error); reconnecting\n"
        case .applied, .status: return nil
        }
    }
}

/// `listsync sink sqlite WATCH --database FILE`.
struct SQLiteSinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sqlite",
        abstract: "Keep a table of a SQLite database (WAL mode) equal to a watched list."
    )

    @OptionGroup var sink: SinkOptions

    @Option(help: ArgumentHelp("The database file, created when missing.", valueName: "file"))
    var database: String

    func run() async throws {
        try await self.sink.run { layout throws(SinkError) in
            try SQLiteSinkStore(path: self.database, watch: self.sink.name, layout: layout)
        }
    }
}

/// `listsync sink postgres WATCH --url postgres://…`.
struct PostgresSinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postgres",
        abstract: "Keep a table of a PostgreSQL database equal to a watched list.",
        discussion: """
            Connection settings come from --url, then the PGHOST, PGPORT, PGUSER, PGPASSWORD, \
            PGDATABASE and PGSSLMODE environment variables, then the password file (PGPASSFILE, \
            default ~/.pgpass), as libpq reads them; without a host, the Unix socket in \
            /var/run/postgresql. The password is never printed. A lost connection is retried \
            with backoff (0.1 s doubling up to 5 s) for as long as it takes.
            """
    )

    @OptionGroup var sink: SinkOptions

    @Option(help: ArgumentHelp("The database: postgres://[user[:password]@][host][:port][/database][?param=value…].", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("The schema the table and the bookkeeping tables are in, created when missing.", valueName: "name"))
    var schema = "public"

    func run() async throws {
        var environment: [String: String] = [:]
        for name in ["PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE", "PGSSLMODE", "PGPASSFILE", "HOME", "USER", "LOGNAME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        let settings: PostgresSettings
        do {
            settings = try PostgresSettings(url: self.url, environment: environment)
        } catch {
            OutputWriter.writeStandardError("listsync: error: \(error)\n")
            throw ExitCode(1)
        }
        let name = self.sink.name
        try await self.sink.run { layout throws(SinkError) in
            let store = PostgresSinkStore(settings: settings, schema: self.schema, watch: name, layout: layout)
            store.onRetry = { reason, delay in
                OutputWriter.writeStandardError("listsync: \(name): database unavailable: \(reason); retrying in \(delay)\n")
            }
            return store
        }
    }
}
