import ArgumentParser
import ListSyncClient
import ListSyncProtocol

/// `--protocol N`: the protocol version a following command (`subscribe`, `mirror`, `exec`)
/// offers the daemon in `hello`, so that a user can see, or feed a consumer, the lines a client
/// of that version gets (a version 1 client's digests are the version 1 ones, as a NATS stream
/// carries them: docs/PROTOCOL.md, *Protocol version 2*).
struct ProtocolOption: ParsableArguments {
    @Option(
        name: .customLong("protocol"),
        help: ArgumentHelp(
            "The protocol version to offer the daemon (1 or 2), so that the lines are what a client of that version gets. Default: the newest. With --from, the stream's version, 1.",
            valueName: "version"))
    var version: Int?

    func validate() throws {
        if let version, !ProtocolVersion.supported.contains(version) {
            throw ValidationError("--protocol \(version): the versions are \(ProtocolVersion.supported.map(String.init).joined(separator: ", "))")
        }
    }

    /// `configuration` offering `--protocol`'s version alone, or, without it, every version.
    func applied(to configuration: ClientConfiguration) -> ClientConfiguration {
        var configuration = configuration
        if let version { configuration.protocols = [version] }
        return configuration
    }

    /// Refuses a version other than 1 with `--from`: a NATS stream carries version 1 lines
    /// (what the sink got from the daemon), which no option turns into another version's.
    func check(source: NATSSourceOptions) throws(ClientFailure) {
        if let version, version != 1, source.from != nil {
            throw .usage("--protocol \(version) with --from: the stream carries protocol version 1 lines (give --protocol 1, or leave it out)")
        }
    }
}
