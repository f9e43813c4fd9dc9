import ArgumentParser
import ListSyncClient
import ListFormats
import ListSyncProtocol

/// `listsync subscribe NAME`: streams a watch's changes.
struct SubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Stream a watched list's changes.",
        discussion: """
            The default format is human on a terminal and ndjson otherwise (a pipe, a file), as \
            ls and git choose. --format ndjson prints one JSON object per event, for jq: each as the protocol message \
            that carries it (docs/PROTOCOL.md) — a "changeset" with its cursor, prev_seq, stages in \
            the changeset encoding and digest; a "status"; and for a snapshot the list as the \
            "snapshot" chunks the daemon sends, one line each (chunk 0 is fresh: replace what you \
            hold; a chunk ends after the record that brings it to 256 KiB, so no line is larger \
            but for a single larger record; the last one, "last": true, carries the digest); with \
            protocol version 2, a changeset over 256 KiB as its parts, one line each, cut the same \
            way ("part" from 0, "last": true with the digest; docs/PROTOCOL.md, *Changeset parts*). --format human prints one line per change, \
            colored on a terminal. --format json-patch prints each snapshot and changeset as one \
            RFC 6902 JSON Patch document that turns the previous JSON rendering of the list \
            (`snapshot --output-format json`) into the next (a snapshot replaces the whole \
            document); --format events prints one line per changed record, Debezium-style: op \
            c, u, d (r for each record of a snapshot), before, after, key, source and ts_ms \
            (docs/PROTOCOL.md, *Change-event output*); the second and later records of one key \
            (identical rows without a key) have "occurrence": N in their key, so replaying the \
            events by key rebuilds every version exactly. Connection events, and in these two \
            formats statuses, go to standard error.

            Every snapshot and changeset is verified against the daemon's digest first. With \
            --since, the stream resumes after that cursor: exactly the missed changesets when the \
            daemon still has them, else a snapshot. (--format human shows the missed changesets \
            by position, [section,record], since the client holds no list yet; once caught up it \
            takes the daemon's list, and names records by key again.) The command reconnects by \
            itself and resumes from the last cursor it printed.

            --protocol N offers the daemon protocol version N alone (default: every version, so \
            the newest, 2): --protocol 1 prints the lines a version 1 client gets, with version 1 \
            digests (docs/PROTOCOL.md, *Protocol version 2*).

            With --from nats://HOST:PORT[,…] the changes come from the watch's JetStream stream \
            (`listsync sink nats` publishes it; --stream, --subject, --credentials as there), \
            not from the daemon, which need not run: the lines a socket subscriber of the \
            stream's protocol version prints (ListSync-Protocol: 2, the default of sink nats, \
            so a changeset over 256 KiB as its parts, each verified before; 1 for a stream \
            written by sink nats --protocol 1 or an older sink; --protocol is refused with \
            --from), cursors and digest checks, \
            starting at the stream's latest complete snapshot (with --since, after that cursor: \
            the changesets the stream holds after it). The stream does not carry the watch's \
            key, so --format human and events name records by position there.

            Exit status: 1 usage or configuration error (no such watch, bad cursor), 2 daemon \
            (or the NATS servers) unreachable at start, 3 data or protocol error, 5 the daemon does not permit this user (at connect, or when a \
            reload revokes it).
            """
    )

    @Argument(help: "The watch's name.", completion: WatchNameCompletion.kind)
    var name: String

    @OptionGroup var connection: ConnectionOptions

    @OptionGroup var protocolVersion: ProtocolOption

    @Option(help: ArgumentHelp("Resume after this cursor (epoch:seq).", valueName: "cursor"))
    var since: String?

    @Option(help: ArgumentHelp("What to print. Default: human on a terminal, else ndjson.", valueName: "format"))
    var format: EventFormat?

    @Option(help: ArgumentHelp("When to color human output.", valueName: "when"))
    var color: ColorOption = .auto

    @OptionGroup var source: NATSSourceOptions

    /// How `subscribe` prints: for people, or in one of the machine formats.
    enum EventFormat: String, CaseIterable, ExpressibleByArgument {
        case ndjson
        case human
        case jsonPatch = "json-patch"
        case events

        /// The machine format; `nil` for human.
        var machine: ChangeOutput.Format? { ChangeOutput.Format(rawValue: self.rawValue) }
    }

    func run() async throws {
        try await ClientFailure.exitingOnFailure {
            let since = try self.since.map { text throws(ClientFailure) in
                guard let cursor = Cursor(text) else { throw .usage("\(text) is not a cursor (16 hex digits, a colon, a sequence number)") }
                return cursor
            }
            try self.protocolVersion.check(source: self.source)
            let client = ListSyncClient(configuration: self.protocolVersion.applied(to: self.connection.configuration(reconnect: ReconnectPolicy(initialAttempts: 1))))
            let isTerminal = OutputWriter().isTerminal
            let format = self.format ?? (isTerminal ? .human : .ndjson)
            if since != nil, format.machine?.needsList == true {
                throw ClientFailure.usage("--format \(format.rawValue) needs the list each changeset applies to, which --since does not give; start without --since")
            }
            // Human lines and events name records by their key, which the daemon's list of
            // watches tells (the stream does not: with --from, records go by position).
            let summary = self.source.from == nil && (format == .human || format == .events) ? try await Self.summary(of: self.name, client: client) : nil
            let naming = MirrorVersion.Naming(of: summary)
            var output = OutputWriter()
            var renderer = HumanUpdateRenderer(style: self.color.style(isTerminal: isTerminal), naming: naming, width: output.terminalWidth)
            var machine = format.machine.map { ChangeOutput(format: $0, watch: self.name, summary: summary) }
            var snapshots = 0
            /// Prints `update` as `format` says: the one printer of both sources.
            func show(_ update: MirrorUpdate) async throws {
                if format == .ndjson, case .snapshot = update.event {
                    // The list as the daemon sends it: one line per chunk, each written as it is made.
                    update.mirror.writeSnapshotLines { line in
                        output.write(bytes: line)
                        output.flush()
                    }
                    return
                }
                if format == .ndjson, case .changeset(let changeset) = update.event, update.mirror.digestVersion == .v2 {
                    // Protocol version 2: a changeset over 256 KiB as the parts the daemon sends,
                    // one line each, once it has verified (docs/PROTOCOL.md, *Changeset parts*).
                    let line = ServerMessage.changeset(changeset).encoded()
                    for part in ChangesetParts.split(line) ?? [line] {
                        output.write(bytes: part)
                    }
                    output.flush()
                    return
                }
                switch format {
                case .ndjson, .jsonPatch, .events:
                    if let bytes = try machine?.bytes(for: update) {
                        output.write(bytes: bytes)
                    } else if let note = HumanUpdateRenderer.note(for: update) {
                        OutputWriter.writeStandardError(note)
                    }
                case .human:
                    if case .snapshot = update.event {
                        snapshots += 1
                        // A later snapshot may start an epoch whose records have another key
                        // (a reload changed it): ask again.
                        if self.source.from == nil, snapshots > 1, let naming = try? await Self.naming(of: self.name, client: client) { renderer.naming = naming }
                    }
                    if !renderer.render(update, to: &output), let note = HumanUpdateRenderer.note(for: update) {
                        OutputWriter.writeStandardError(note)
                    }
                    if update.isCurrent, !renderer.hasList, !update.mirror.hasList, let cursor = update.mirror.cursor {
                        // Resumed with --since: no list to name records by. Take the daemon's,
                        // when it is still at this cursor (and reachable; else try at the next update).
                        if let current = try? await client.withMirror(of: self.name, { try await SnapshotCommand.currentMirror(in: $0) }),
                            current.cursor == cursor
                        {
                            renderer.adopt(current)
                        }
                    }
                }
                output.flush()
            }
            let start = since.map { MirroredList(watch: self.name, following: $0) } ?? MirroredList(watch: self.name)
            if let from = self.source.from {
                return try await self.source.nats.follow(self.name, from: from, as: "listsync subscribe \(self.name)", start: start, state: nil, handle: show)
            }
            try await client.withMirror(resuming: start) { updates in
                for try await update in updates { try await show(update) }
            }
        }
    }

    /// How the records of watch `name` are named: by the key fields the daemon reports for it;
    /// by position when it has none (or is not there: subscribing then says so).
    static func naming(of name: String, client: ListSyncClient) async throws -> MirrorVersion.Naming {
        MirrorVersion.Naming(of: try await self.summary(of: name, client: client))
    }

    /// The daemon's description of watch `name`; `nil` when it has none (subscribing then says so).
    static func summary(of name: String, client: ListSyncClient) async throws -> WatchSummary? {
        try await client.watches().first { $0.name == name }
    }
}
