import ArgumentParser
import ListSyncClient

/// `listsync metrics`: the daemon's Prometheus metrics, over its socket.
struct MetricsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print the daemon's metrics in the Prometheus text format.",
        discussion: """
            The same text the daemon's metrics endpoint (metrics_listen, or the systemd socket \
            listsyncd-metrics.socket) serves at /metrics, asked for over the daemon's socket: \
            for hosts without a scraper, or to feed a textfile collector. Every family has its \
            HELP line; see listsyncd.toml(5) for what each one counts.

            Exit status: 0 success, 1 usage or configuration error, 2 daemon unreachable (or \
            too old to serve metrics: it answers that the request type is unknown), 5 the daemon \
            does not permit this user.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await ClientFailure.exitingOnFailure {
            let client = ListSyncClient(configuration: self.connection.configuration(reconnect: .never))
            let exposition = try await client.metrics()
            var output = OutputWriter()
            output.write(exposition)
            output.flush()
        }
    }
}
