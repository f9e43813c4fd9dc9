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

    /// Connects to `servers` as `client`; a failure is the command's exit status 2.
    func connect(to servers: [String], as client: String) throws(ClientFailure) -> NATSConnection {
        do {
            return try NATSConnection(.init(servers: servers, credentials: self.credentials, name: client))
        } catch {
            throw .unreachable("\(error)")
        }
    }
}
