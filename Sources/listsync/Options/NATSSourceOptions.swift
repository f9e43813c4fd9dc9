import ArgumentParser

/// `--from nats://…` with the stream's options: what `mirror`, `subscribe`, `exec` and
/// `snapshot` share to take the list from the watch's JetStream stream instead of the daemon.
struct NATSSourceOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Take the list from the watch's JetStream stream on these NATS servers (nats://HOST:PORT, comma-separated) instead of the daemon, which need not run: see `listsync sink nats`. A stream that does not exist on them is an error (exit status 1), not an empty list.",
            valueName: "urls"))
    var from: String?

    @OptionGroup var nats: NATSStreamOptions
}
