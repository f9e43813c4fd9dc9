import ArgumentParser
import DurableFiles
import ListFormats
import ListSyncClient
import ListSyncProtocol

/// `listsync mirror NAME --output FILE`: keeps a file equal to a watched list, replacing it
/// atomically after every verified snapshot and changeset.
struct MirrorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mirror",
        abstract: "Keep a file equal to a watched list.",
        discussion: """
            After the snapshot and after every changeset (each verified against the daemon's \
            digest), the whole list is written to a temporary file in FILE's directory, flushed to \
            disk and renamed over FILE, so readers always see a complete version; a snapshot's \
            records go to that file as its chunks arrive (the list is held once, not also as the \
            file's bytes), and a snapshot that does not verify or is cut off leaves FILE as it \
            was. The command \
            reconnects by itself and resumes from the last version it applied; a daemon that no \
            longer has the changesets it missed (a new epoch, too far behind) sends a fresh \
            snapshot. While the watched file is invalid or missing, FILE keeps the last good \
            version.

            The command also survives its own restarts: before FILE, it writes its state file \
            (--state, default .FILE.listsync-state beside FILE), a journal of the list it mirrors: \
            a snapshot (an entry per chunk), then each changeset applied since, appended and flushed to disk (a write \
            the size of the change; once the changesets outweigh the snapshot or number 32, the \
            file is replaced atomically with a new one). Started again, it replays the journal an entry \
            at a time, checking every digest, writes FILE from it (holding the list once, as a first \
            run does), and resumes after its cursor with just the \
            changesets it missed ("resuming" on standard error). A last entry cut short by a crash \
            is dropped, and said on standard error; a state that cannot be read or does not verify \
            is moved aside to STATE.damaged, said on standard error, and the mirror starts from a \
            snapshot. Delete the state file to start over.

            The format is --output-format, or FILE's extension. A CSV mirror of a JSON object of \
            arrays keeps each record's section in a first column, --section-column (default: \
            section); while the records have a member of that name, the sections go to the \
            first of NAME_2, NAME_3, … that they do not have, said on standard error, and the \
            mirror goes on.

            One mirror keeps FILE: it holds a lock on .FILE.listsync-lock beside FILE and on \
            STATE.lock (STATE: --state's file, or the default .FILE.listsync-state) while it runs, and a second `mirror` on the same FILE or \
            state exits at once with status 1, naming the process that holds it.

            With --from nats://HOST:PORT[,…] the list comes from the watch's JetStream stream \
            (`listsync sink nats` publishes it; --stream, --subject, --credentials as there), \
            not from the daemon, which need not run: the same checks (sequence, digest) and the \
            same state file, plus STATE.nats with the stream sequence reached, from which a \
            restart reads on. --once exits once FILE holds the stream's last version.

            Exit status: 0 after --once, 1 usage or configuration error (no such watch, FILE or \
            its state mirrored by another process), 2 daemon \
            (or the NATS servers) unreachable at start, 3 data or protocol error (FILE cannot be written, or the daemon's data does \
            not verify), 5 the daemon does not permit this user (at connect, or when a reload \
            revokes it).
            """
    )

    @Argument(help: "The watch's name.", completion: WatchNameCompletion.kind)
    var name: String

    @OptionGroup var connection: ConnectionOptions

    @OptionGroup var protocolVersion: ProtocolOption

    @Option(help: ArgumentHelp("The file to keep equal to the list.", valueName: "file"))
    var output: String

    @Option(name: .customLong("output-format"), help: ArgumentHelp("The file's format. Default: from its extension.", valueName: "format"))
    var outputFormat: FileFormat?

    @OptionGroup var sections: SectionColumnOption

    @Option(help: ArgumentHelp("Where to keep the state to resume from after a restart. Default: .FILE.listsync-state beside FILE.", valueName: "file"))
    var state: String?

    @Flag(help: "Exit as soon as FILE reflects the daemon's current version (with --from, the stream's last message).")
    var once = false

    @OptionGroup var source: NATSSourceOptions
    func run() async throws {
        // Each chunk's freed buffers serve the next (see MallocThresholds.keepFreedMemory).
        MallocThresholds.keepFreedMemory.apply()
        try await ClientFailure.exitingOnFailure {
            try self.protocolVersion.check(source: self.source)
            guard let format = self.outputFormat?.listFormat ?? ListFormat(path: self.output) else {
                throw ClientFailure.usage("\(self.output): cannot tell the format from the file name; use --output-format csv|tsv|json|ndjson")
            }
            let writer = AtomicFileWriter(path: self.output)
            let stateFile = self.state.map(StateJournal.init(path:)) ?? StateJournal.beside(self.output)
            // One mirror per output and per state, held before either is read or written.
            let outputLock = try OwnerLock.take(OwnerLock.path(forOutput: writer), for: "\(self.output) is mirrored")
            // The default state as well as --state's: another mirror's --state may name it.
            let stateLock = try OwnerLock.take(stateFile.path + ".lock", for: "\(stateFile.path) is the state of a mirror")
            defer { withExtendedLifetime((outputLock, stateLock)) {} }
            var state = ClientState(file: stateFile, kind: .list)
            let output = MirrorOutput(format: format, sectionColumn: self.sections)
            /// The section column in use when it is not --section-column's: said on standard
            /// error each time it changes.
            var renamedColumn: String?
            /// FILE with `mirror`'s list.
            func write(_ mirror: MirroredList) throws {
                // Streamed: the list is held once, not also as FILE's bytes.
                let renamed: String?
                do {
                    renamed = try output.write(mirror, to: writer)
                } catch {
                    throw ClientFailure.data("\(error)")
                }
                if renamed != renamedColumn {
                    renamedColumn = renamed
                    OutputWriter.writeStandardError(
                        renamed.map { "listsync: warning: the records now have a member \"\(self.sections.sectionColumn)\": \(self.output) keeps the sections in column \"\($0)\" (read it back with --section-by \($0), or choose the column with --section-column NAME)\n" }
                            ?? "listsync: \(self.output) keeps the sections in column \"\(self.sections.sectionColumn)\" again\n")
                }
            }
            /// A snapshot's records, written beside FILE as they arrive (the mirror holds the
            /// list once, not also as bytes); renamed over FILE once it is verified and saved.
            let streamed = StreamedListFile(destination: .file(writer), output: output, collects: false)
            defer { streamed.discard() }
            /// The state, then FILE: a crash between the two leaves FILE one version behind the
            /// state, which a restart writes again.
            func save(_ mirror: MirroredList, after changeset: ChangesetMessage?) throws {
                do {
                    try state.save(mirror, after: changeset)
                } catch {
                    throw ClientFailure.data("\(error)")
                }
                if changeset == nil, streamed.isFinished {
                    try streamed.commit()
                } else {
                    try write(mirror)
                }
            }
            let start = state.restore(of: self.name).mirror(of: self.name)
            // FILE may be a version behind the state (or edited): make it the state's version.
            if start.hasList { try write(start) }
            if let from = self.source.from {
                return try await self.followStream(from: from, start: start, state: stateFile, streamed: streamed, save: save)
            }
            // The first connection must work; after that, reconnect for as long as it takes.
            var configuration = self.protocolVersion.applied(to: self.connection.configuration(reconnect: ReconnectPolicy(initialAttempts: 1)))
            configuration.snapshotDelivery = .chunks
            let client = ListSyncClient(configuration: configuration)
            try await client.withMirror(resuming: start) { updates in
                for try await update in updates {
                    switch update.event {
                    case .snapshotChunk(let chunk):
                        try streamed.receive(chunk)
                    case .snapshot:
                        try streamed.finish()
                        try save(update.mirror, after: nil)
                    case .changeset(let changeset):
                        try save(update.mirror, after: changeset)
                    case .resyncing, .disconnected:
                        // A snapshot being written will not complete: FILE stays as it is.
                        streamed.discard()
                        if let note = HumanUpdateRenderer.note(for: update) { OutputWriter.writeStandardError(note) }
                    case .status, .subscribed:
                        if let note = HumanUpdateRenderer.note(for: update) { OutputWriter.writeStandardError(note) }
                    }
                    if self.once, update.isCurrent { return }
                }
            }
        }
    }
}
