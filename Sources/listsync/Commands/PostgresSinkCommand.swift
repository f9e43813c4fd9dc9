import ArgumentParser
import ListSyncSink

#if canImport(Glibc)
import Glibc
#endif

/// `listsync sink postgres WATCH --url postgres://…`.
struct PostgresSinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postgres",
        abstract: "Keep a table of a PostgreSQL database equal to a watched list.",
        discussion: """
            Connection settings come from --url, then the PGHOST, PGPORT, PGUSER, PGPASSWORD, \
            PGDATABASE and PGSSLMODE environment variables, then the password file (PGPASSFILE, \
            default ~/.pgpass), as libpq reads them; without a host, the Unix socket in \
            /var/run/postgresql. The password is never printed; failures say the socket or host, \
            the cause (errno, the server's message) and where each setting came from (--url, a \
            PG* variable, the default). A lost connection is retried with backoff (0.1 s doubling \
            up to 5 s) for as long as it takes; any other failure (TLS set-up, a statement the \
            server rejects) stops the sink with status 3.
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
            let store = PostgresSinkStore(settings: settings, schema: self.schema, watch: name, layout: layout, takeOver: self.sink.takeOverTable)
            store.onRetry = { reason, delay in
                OutputWriter.writeStandardError(HumanUpdateRenderer.reconnecting("\(name): database unavailable: \(reason)", in: delay))
            }
            store.onReconnected = { database in
                OutputWriter.writeStandardError("listsync: \(name): database \(database) reachable again: resuming\n")
            }
            return store
        }
    }
}
