import ArgumentParser
import ListSyncClient
import ListSyncProtocol

/// `listsync exec NAME -- CMD [ARGS...]`: runs a command once per changeset, in order, one at a
/// time, with the changeset on its standard input.
struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a command once per changeset, with the changeset on its standard input.",
        discussion: """
            The command gets the changeset on standard input as `subscribe --format FORMAT` \
            prints it — by default (ndjson) one line of JSON, the changeset message; with \
            --format json-patch one RFC 6902 document; with --format events one line per changed \
            record (possibly none) — and LISTSYNC_WATCH and LISTSYNC_CURSOR in its environment. Commands run one at a time, in the order of the changesets; the next \
            changeset is not read before the command has exited. The input is written while the \
            command runs, so a command may read it slowly, or only in part: one that stops reading \
            (exits, closes its input) is reported on standard error, and that alone is no failure.

            A command that exits with a status other than 0 or is killed by a signal has failed: \
            it is reported on standard error, and with --on-error continue (the default) the \
            stream goes on; with --on-error stop, `exec` exits with status 4. With --timeout \
            DURATION (500ms, 30s, 2m), a command still running after DURATION gets SIGTERM, and \
            SIGKILL 5 s later if it has not exited; that run has failed, whatever its status. Each \
            command runs in a process group of its own and the signals go to the whole group, so \
            the processes it started (the commands of sh -c, a pipeline) stop with it. SIGINT \
            (Ctrl-C), SIGTERM and SIGHUP that `exec` gets are passed on to the running command's \
            group before `exec` ends (with --state, through the run's process, which still \
            records a command that then exits 0). A \
            command that runs longer than a minute is reported on standard error (once per run).

            The first snapshot runs nothing. A later one (a new epoch, or the data had to be \
            resynchronized) runs the command with the whole list as a "snapshot" message: replace \
            what you hold.

            With --state FILE, `exec` resumes across its own restarts: after each command that \
            exits 0 — and only then — it records that changeset's cursor in FILE (flushed \
            to disk; with --format json-patch or events, also the list at that cursor, which the \
            next changeset is described against, kept as a journal like `mirror`'s state). Started again, it resumes after that cursor: the \
            command runs once for each changeset it missed, in order (or, when the daemon no \
            longer has them, once with a snapshot), so each changeset's command succeeds exactly \
            once across restarts of `exec` and of the daemon. With --state, each run is made by a \
            `listsync` process of its own that outlives `exec`: holding a lock on FILE.lock, it \
            runs the command unless FILE.done records the changeset as done, and records it there \
            when the command exits 0, so a command that succeeded runs once even when `exec` is \
            killed right after it. One `exec` keeps FILE: it holds a lock on FILE.owner-lock while it \
            runs, and a second `exec` with the same --state exits at once with status 1, naming the \
            process that holds it. A changeset whose command was killed, failed with --on-error \
            stop, or whose run process was itself killed (or the machine went down) between the \
            command's exit and the record, runs again after the restart: make commands \
            idempotent by LISTSYNC_CURSOR where a repeat matters. With --on-error continue, a failed changeset \
            is passed over once a later one succeeds. A FILE that cannot be read is moved aside \
            to FILE.damaged and said on standard error; the command then runs with a snapshot. \
            Without --state, a restarted `exec` starts from the daemon's current version. Delete \
            FILE and FILE.done to start over.

            With --from nats://HOST:PORT[,…] the changesets come from the watch's JetStream \
            stream (`listsync sink nats` publishes it; --stream, --subject, --credentials as \
            there), not from the daemon, which need not run: the input exec gives over the socket at \
            the version the stream's lines carry (ListSync-Protocol, 2 unless its sink was given \
            --protocol 1, whose digests it checks; --protocol is refused with --from), cursors, digest \
            checks and --state (plus FILE.nats, the stream sequence reached, from which a restart \
            reads on; without it, a restart reads the stream from its first message to find the \
            changesets after FILE's cursor). The stream does not carry the watch's key, so \
            --format events names records by position there.

            Exit status: 1 usage or configuration error (no such watch, no command, a command that \
            cannot be started), 2 daemon (or the NATS servers) unreachable at start, 3 data or protocol error, 4 the command failed \
            and --on-error is stop, 5 the daemon does not permit this user.
            """
    )

    @Argument(help: "The watch's name.", completion: WatchNameCompletion.kind)
    var name: String

    @OptionGroup var connection: ConnectionOptions

    @OptionGroup var protocolVersion: ProtocolOption

    @Option(name: .customLong("on-error"), help: ArgumentHelp("What to do after a command failed: go on with the next changeset, or stop (exit status 4).", valueName: "policy"))
    var onError: FailurePolicy = .continue

    @Option(help: ArgumentHelp("What the command gets on standard input.", valueName: "format"))
    var format: ChangeOutput.Format = .ndjson

    @Option(help: ArgumentHelp("Stop a command that runs longer than this (500ms, 30s, 2m): SIGTERM, then SIGKILL 5 s later; that run has failed.", valueName: "duration"))
    var timeout: DurationArgument?

    /// How long a run may go on before it is reported on standard error: a minute (a hidden
    /// option, for the tests).
    @Option(name: .customLong("warn-after"), help: ArgumentHelp(visibility: .private))
    var warnAfter: DurationArgument = ExecutedCommand.Limits.defaultWarnAfter

    @Option(help: ArgumentHelp("Keep the cursor of the last changeset done in this file, and resume after it when started again.", valueName: "file"))
    var state: String?

    /// Set on the `listsync` process `exec --state` starts for each run of the command
    /// (``RecordedRun``): not for people.
    @Option(name: .customLong("recorded-run"), help: ArgumentHelp(visibility: .private))
    var recordedRun: RecordedRun?

    @OptionGroup var source: NATSSourceOptions

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    /// The time limit and long-run warning of each run.
    private var limits: ExecutedCommand.Limits {
        ExecutedCommand.Limits(timeout: self.timeout, warnAfter: self.warnAfter)
    }

    /// What `exec` does after a command failed.
    enum FailurePolicy: String, CaseIterable, ExpressibleByArgument {
        /// Report it and go on with the next changeset.
        case `continue`
        /// Report it and exit with ``ClientFailure/commandFailed(_:)``'s status.
        case stop
    }

    func run() async throws {
        try await ClientFailure.exitingOnFailure {
            guard let command = ExecutedCommand(commandLine: self.command) else { throw ClientFailure.usage("no command to run; put it after --") }
            // Ctrl-C, SIGTERM and SIGHUP stop the running command too, not only exec.
            SignalForwarding.install(outlivingCommand: self.recordedRun != nil)
            if let recordedRun {
                guard let state = self.state else { throw ClientFailure.usage("--recorded-run needs --state") }
                guard try await recordedRun.perform(command, watch: self.name, state: StateJournal(path: state), limits: self.limits) else {
                    throw ExitCode(RecordedRun.commandFailedStatus)
                }
                return
            }
            try self.protocolVersion.check(source: self.source)
            let client = ListSyncClient(configuration: self.protocolVersion.applied(to: self.connection.configuration(reconnect: ReconnectPolicy(initialAttempts: 1))))
            let stateFile = self.state.map(StateJournal.init(path:))
            // One exec per state, for its whole run: two would append to one journal.
            let ownerLock = try stateFile.map { file throws(ClientFailure) in
                try OwnerLock.take(OwnerLock.path(forExecState: file), for: "\(file.path) is the state of an exec")
            }
            defer { withExtendedLifetime(ownerLock) {} }
            // JSON Patch and events describe each changeset against the list before it, so
            // their state is the list itself.
            var state = stateFile.map { ClientState(file: $0, kind: self.format.needsList ? .list : .cursor) }
            let resumption = state?.restore(of: self.name) ?? .fresh
            // The stream does not carry the watch's key: with --from, events go by position.
            let summary = self.format == .events && self.source.from == nil ? try await SubscribeCommand.summary(of: self.name, client: client) : nil
            var output = ChangeOutput(format: self.format, watch: self.name, summary: summary)
            if case .resumed(let mirror) = resumption, mirror.hasList { output.start(from: mirror) }
            /// Records `update`'s cursor as done.
            func record(_ update: MirrorUpdate) throws {
                var changeset: ChangesetMessage?
                if case .changeset(let applied) = update.event { changeset = applied }
                do {
                    try state?.save(update.mirror, after: changeset)
                } catch {
                    throw ClientFailure.data("\(error)")
                }
            }
            /// Runs the command with `line`, `update`'s input, at `cursor`; whether it succeeded.
            /// With --state, a `listsync` process of its own makes the run and records its success
            /// (``RecordedRun``), so that killing `exec` cannot separate the two.
            func run(_ line: [UInt8], for update: MirrorUpdate, at cursor: Cursor) async throws -> Bool {
                let kind: RecordedRun.Kind
                if case .snapshot = update.event { kind = .snapshot } else { kind = .changeset }
                guard let stateFile, let recorded = RecordedRun(kind: kind, cursor: cursor, inputBytes: line.count).process(running: command, watch: self.name, state: stateFile, limits: self.limits) else {
                    let outcome = try await command.run(
                        input: line, environment: ["LISTSYNC_WATCH": self.name, "LISTSYNC_CURSOR": cursor.description], limits: self.limits, cursor: cursor.description)
                    if let report = outcome.report(of: command, cursor: cursor.description) {
                        OutputWriter.writeStandardError(report)
                    }
                    return outcome.isSuccess
                }
                // The run's process applies the limits to the command itself.
                let outcome = try await recorded.run(input: line, environment: [:], limits: .none, cursor: cursor.description)
                switch outcome.status {
                case .exited(0): return true
                case .exited(RecordedRun.commandFailedStatus): return false
                // The run has told why on standard error; `exec` ends the same way.
                case .exited(let code): throw ExitCode(code)
                case .signaled:
                    OutputWriter.writeStandardError(outcome.report(of: recorded, cursor: cursor.description) ?? "")
                    return false
                }
            }
            // Only a first start's first snapshot is where the command begins, not a change.
            var snapshotRuns: Bool
            if case .fresh = resumption { snapshotRuns = false } else { snapshotRuns = true }
            /// Runs the command for `update` and records it: the one loop body of both sources.
            func handle(_ update: MirrorUpdate) async throws {
                if let note = HumanUpdateRenderer.note(for: update) { OutputWriter.writeStandardError(note) }
                switch update.event {
                case .changeset:
                    break
                case .snapshot:
                    defer { snapshotRuns = true }
                    guard snapshotRuns else {
                        _ = try output.bytes(for: update)
                        try record(update)
                        return
                    }
                case .status, .subscribed, .resyncing, .disconnected, .snapshotChunk:
                    return
                }
                guard let line = try output.bytes(for: update), let cursor = update.mirror.cursor else { return }
                if try await run(line, for: update, at: cursor) {
                    try record(update)
                } else if self.onError == .stop {
                    throw ClientFailure.commandFailed("stopping after \(command.commandLine.first ?? "the command") failed on changeset \(cursor) (--on-error stop)")
                }
            }
            if let from = self.source.from {
                return try await self.source.nats.follow(
                    self.name, from: from, as: "listsync exec \(self.name)", start: resumption.mirror(of: self.name), state: stateFile, handle: handle)
            }
            try await client.withMirror(resuming: resumption.mirror(of: self.name)) { updates in
                for try await update in updates { try await handle(update) }
            }
        }
    }
}
