import ArgumentParser
import ListSyncSink
import NATSTransport

/// Which JetStream stream and subject hold a watch, and how to log in: the options `sink nats`
/// and `mirror --from` share.
struct NATSStreamOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The JetStream stream. Default: LISTSYNC_<watch> (characters other than letters, digits, - and _ become _).", valueName: "name"))
    var stream: String?

    @Option(help: ArgumentHelp("The subject the watch's messages are published to. Default: listsync.<watch>.", valueName: "subject"))
    var subject: String?

    @Option(help: ArgumentHelp("A NATS credentials file (JWT and NKey seed) for the servers' account.", valueName: "file"))
    var credentials: String?

    /// The stream's name for `watch`.
    func streamName(of watch: String) -> String { self.stream ?? JetStreamNames.stream(ofWatch: watch) }

    /// The subject for `watch`.
    func subjectName(of watch: String) -> String { self.subject ?? JetStreamNames.subject(ofWatch: watch) }

    /// A follower of `watch`'s subject on the servers `from` names (`--from`: nats://HOST:PORT,
    /// comma-separated), connected as `client`.
    func follower(of watch: String, from: String, as client: String) async throws(ClientFailure) -> JetStreamFollower {
        let servers = from.split(separator: ",").map { String($0) }
        let connection = try await self.connect(to: servers, as: client)
        return JetStreamFollower(connection: connection, stream: self.streamName(of: watch), subject: self.subjectName(of: watch))
    }

    /// What is wrong with `servers` (`--from`, `--server`), naming the first URL nats.c cannot
    /// use — which it would only report as "No server available"; `nil` when they are usable.
    static func urlProblem(in servers: [String]) -> String? {
        servers.first { $0.contains("://") && !($0.hasPrefix("nats://") || $0.hasPrefix("tls://")) }
            .map { "\($0): not a NATS server URL; use nats://HOST:PORT (or tls://HOST:PORT)" }
    }

    /// Connects to `servers` as `client` (off the cooperative pool: connecting blocks); a
    /// failure is the command's exit status 2.
    func connect(to servers: [String], as client: String) async throws(ClientFailure) -> NATSConnection {
        if let problem = Self.urlProblem(in: servers) { throw .usage(problem) }
        do {
            return try await JetStreamBlocking.connect(.init(servers: servers, credentials: self.credentials, name: client))
        } catch {
            throw .unreachable("\(error)")
        }
    }

    /// Runs `body`, which reads a stream: a stream that does not exist is the command's exit
    /// status 1 (like an unknown watch), any other NATS failure 3.
    static func readingStream<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let missing as JetStreamMissingStream {
            throw ClientFailure.usage("\(missing)")
        } catch let error as NATSError {
            throw ClientFailure.data("\(error)")
        }
    }
}
