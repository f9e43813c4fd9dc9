import ArgumentParser
import Foundation
import ListSyncClient
import ListSyncSink
import NATSTransport

extension ListSyncBenchmarks {
    /// Issue 21's goals: the sink's initial publish of a large list into a replicated stream,
    /// the cluster's publish acknowledgement, and how far a mirror fed by the stream lags a
    /// socket subscriber.
    struct NATS: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "nats",
            abstract: "listsync sink nats into a 3-node JetStream cluster (runs listsyncd, listsync and nats-server).",
            discussion: """
                Starts a 3-node nats-server cluster on loopback (JetStream file storage in a temporary \
                directory) and listsyncd and listsync (release build, next to this benchmark). Initial \
                publish: a --large-rows CSV watch, `listsync sink nats --replicas 3` started, timed until \
                the stream's last message is the daemon's snapshot, complete. Publish acknowledgement: \
                --acks publishes of a one-row changeset line (as the sink publishes it: the expected \
                last subject sequence, a Nats-Msg-Id) into an R3 stream, each timed until the cluster \
                acknowledges it. Mirror lag: a 10k-row watch, its sink into an R3 stream, a socket \
                subscriber and a stream follower (the code of `listsync mirror --from`) in this \
                process, and a `listsync mirror --from … --output FILE` process; --edits one-row edits, \
                each timed from the instant the socket subscriber has the changeset to the instant the \
                follower has applied it (digest checked), and to the instant the mirror's file (polled \
                every millisecond) equals the saved file.
                """
        )

        @Option(help: "Rows of the initial publish's list.")
        var largeRows = 1_000_000

        @Option(help: "Publishes timed for the acknowledgement.")
        var acks = 200

        @Option(help: "Edits of the 10k-row watch for the mirror lag.")
        var edits = 100

        @Option(help: "Where the files go (a fresh directory under it).")
        var directory = NSTemporaryDirectory()

        func run() async throws {
            let here = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
            let scratch = URL(fileURLWithPath: self.directory).appendingPathComponent("listsync-nats-benchmark-\(getpid())")
            try? FileManager.default.removeItem(at: scratch)
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let cluster = try await NATSBenchmarkCluster(directory: scratch.appendingPathComponent("nats"))
            defer { cluster.stop() }
            let benchmark = NATSBenchmark(cluster: cluster, binaries: here, scratch: scratch)
            var table = Table(header: ["measure", "n", "p50", "p99", "max", "goal"])
            let initial = try await benchmark.initialPublish(rows: self.largeRows)
            table.rows.append(["initial publish, \(self.largeRows) rows into R3", "1", initial.milliseconds, "", "", "≤ 10 000 ms"])
            let acknowledgements = LatencySamples(try await benchmark.acknowledgements(count: self.acks))
            table.rows.append(Self.row("publish acknowledged by the R3 cluster", self.acks, acknowledgements, goal: "≤ 10 ms p50"))
            let lags = try await benchmark.mirrorLag(edits: self.edits)
            table.rows.append(Self.row("stream follower after socket subscriber, 10k rows", self.edits, LatencySamples(lags.follower), goal: "≤ 50 ms p50"))
            table.rows.append(Self.row("`mirror --from` file equal after socket subscriber, 10k rows", self.edits, LatencySamples(lags.mirrorFile), goal: "≤ 50 ms p50"))
            print(table.markdown)
            try? FileManager.default.removeItem(at: scratch)
        }

        static func row(_ name: String, _ count: Int, _ samples: LatencySamples, goal: String) -> [String] {
            [name, "\(count)", samples.p50.milliseconds, samples.p99.milliseconds, samples.max.milliseconds, goal]
        }
    }
}
