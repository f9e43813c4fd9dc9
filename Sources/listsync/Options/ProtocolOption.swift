import ArgumentParser
import ListSyncClient
import ListSyncProtocol

/// `--protocol N`: the protocol version a following command (`subscribe`, `mirror`, `exec`,
/// `sink nats`) offers the daemon in `hello`, so that a user can see, or feed a consumer, the
/// lines a client of that version gets (a version 1 client's digests are the version 1 ones:
/// docs/PROTOCOL.md, *Protocol version 2*); for `sink nats`, the version of the lines its stream
/// carries (*The NATS transport*).
struct ProtocolOption: ParsableArguments {
    @Option(
        name: .customLong("protocol"),
        help: ArgumentHelp(
            "The protocol version to offer the daemon (1 or 2), so that the lines are what a client of that version gets (sink nats: the version of the lines its stream carries). Default: the newest. Not with --from: a stream's lines are at the version their sink published them (its ListSync-Protocol header).",
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

    /// Refuses `--protocol` with `--from`: a NATS stream's lines are at the version the sink got
    /// from the daemon (each message's `ListSync-Protocol`, 1 or 2), which the reader verifies and
    /// prints as they are; no option turns them into another version's.
    func check(source: NATSSourceOptions) throws(ClientFailure) {
        if let version, source.from != nil {
            throw .usage("--protocol \(version) with --from: a stream's lines are at the protocol version its sink published them (ListSync-Protocol; `sink nats --protocol` chooses it); leave --protocol out")
        }
    }
}
