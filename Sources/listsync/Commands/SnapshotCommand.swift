import ArgumentParser
import DurableFiles
import ListFormats
import ListSyncClient
import ListSyncSink
import NATSTransport

/// `listsync snapshot NAME`: the watched list as the daemon has it now, in the output shapes of
/// `listsync parse`.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Print a watched list as the daemon has it now.",
        discussion: """
            The list is received as a snapshot, its digest checked, and printed as `listsync parse` \
            prints a file: JSON is an array of records, or an object of arrays when the list is \
            sectioned; CSV has the file's header, and the sections of a JSON object of arrays in a \
            first column, --section-column (default: section).

            The list is written as it streams in: each chunk's records go to a temporary file \
            (with --output FILE, beside FILE; else an unlinked file in $TMPDIR or /tmp) as they \
            arrive, and only once the digest on the last chunk matches is it renamed over FILE \
            (after fsync) or printed. A snapshot that does not verify is asked for again; one cut \
            off with the daemon ends the command and leaves FILE as it was. Meanwhile only the \
            records' hashes are kept (16 bytes a record): memory stays below the list's size. \
            (A CSV of a sectioned list is written once verified: whether its sections need a \
            column of their own depends on every record.)

            A watch the daemon is still loading (right after it started) is waited for. When the \
            watch's file is invalid or missing now, its last good version is printed all the same, \
            with a note on standard error naming the state and the reason, and the status is 3.

            With --from nats://HOST:PORT[,…] the list comes from the watch's JetStream stream \
            (`listsync sink nats` publishes it; --stream, --subject, --credentials as there) as \
            of its last message, not from the daemon, which need not run. Its latest snapshot is \
            written as it streams in, as above; when changesets follow that snapshot in the stream, \
            the list is read again, held whole, and written once complete.

            Exit status: 0 success, 1 usage or configuration error (no such watch), 2 daemon \
            (or the NATS servers) unreachable, 3 data or protocol error (the watch is invalid or missing: its last good version, if \
            it has one, is printed), 5 the daemon does not permit this user.
            """
    )

    @Argument(help: "The watch's name.", completion: WatchNameCompletion.kind)
    var name: String

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("output-format"), help: ArgumentHelp("The format to print.", valueName: "format"))
    var outputFormat: FileFormat = .json

    @OptionGroup var sections: SectionColumnOption

    @OptionGroup var source: NATSSourceOptions

    @Option(help: ArgumentHelp("Write the list to this file (replaced atomically once the list is verified) instead of standard output.", valueName: "file"))
    var output: String?

    func run() async throws {
        // Each chunk's freed buffers serve the next (see MallocThresholds.keepFreedMemory).
        MallocThresholds.keepFreedMemory.apply()
        try await ClientFailure.exitingOnFailure {
            let destination: StreamedListFile.Destination = self.output.map { .file(AtomicFileWriter(path: $0)) } ?? .standardOutput
            let file = StreamedListFile(
                destination: destination, output: MirrorOutput(format: self.outputFormat.listFormat, sectionColumn: self.sections), collects: true)
            defer { file.discard() }
            let mirror: MirroredList
            if let from = self.source.from {
                mirror = try await self.streamMirror(from: from, writingTo: file)
            } else {
                var configuration = self.connection.configuration(reconnect: .never)
                // The records go to the file as they arrive; the mirror keeps their hashes only.
                configuration.snapshotDelivery = .chunksWithoutList
                let client = ListSyncClient(configuration: configuration)
                mirror = try await Self.currentMirror(of: self.name, from: client, writingTo: file)
            }
            try file.commit()
            if let stale = Self.staleness(of: mirror) {
                throw ClientFailure.data("\(stale); printed its last good version, \(mirror.cursor?.description ?? "-")")
            }
        }
    }

    /// The current mirror of `watch`, its list written to `file` as it streams in. A snapshot
    /// written while the watch loads may be overtaken by the version its file holds now: that
    /// one is asked for again, in a subscription of its own.
    static func currentMirror(of watch: String, from client: ListSyncClient, writingTo file: StreamedListFile) async throws -> MirroredList {
        while true {
            do {
                return try await client.withMirror(of: watch) { updates in
                    try await Self.currentMirror(in: updates, writingTo: file)
                }
            } catch is SnapshotOvertaken {
                file.discard()
            }
        }
    }

    /// The first mirror that reflects the daemon's current version, once the watch is past
    /// `loading` (its file has been read since the daemon started). With `file` (updates of
    /// ``SnapshotDelivery/chunksWithoutList``), the list is written to it as the snapshot streams
    /// in (finished, not committed) and the mirror holds only its cursor.
    ///
    /// - Throws: ``ClientFailure/data(_:)`` when the watch has no valid version to show.
    static func currentMirror(in updates: MirrorUpdates, writingTo file: StreamedListFile? = nil) async throws -> MirroredList {
        for try await update in updates {
            switch update.event {
            case .snapshotChunk(let chunk):
                try file?.receive(chunk)
                continue
            case .snapshot:
                try file?.finish()
            case .resyncing, .disconnected:
                // The snapshot being written will not verify: the next one starts over.
                file?.discard()
                continue
            case .changeset where file != nil:
                // The list written is not the current one any more, and the file cannot apply it.
                throw SnapshotOvertaken()
            case .status, .subscribed, .changeset:
                break
            }
            // The daemon sends the watch's status after the snapshot, or first when it has no
            // version yet: wait for a state other than `loading`.
            let mirror = update.mirror
            guard case .status = update.event, mirror.watchState != .loading else { continue }
            let hasList = file?.isFinished ?? mirror.hasList
            if !hasList, let stale = Self.staleness(of: mirror) {
                throw ClientFailure.data("\(stale): it has no valid version")
            }
            if update.isCurrent, hasList { return mirror }
        }
        throw ClientError.cancelled
    }

    /// The list as of the last message of the watch's stream on the servers `from` names. With
    /// `file`, written to it as the stream's latest snapshot streams in (finished, not
    /// committed), as over the socket: the mirror keeps only the records' hashes and then the
    /// cursor. When changesets follow that snapshot, the file cannot apply them: the stream is
    /// read again without `file`, the list held whole, and written to `file` at the end.
    ///
    /// - Throws: ``ClientFailure/data(_:)`` when the stream holds no complete snapshot.
    func streamMirror(from: String, writingTo file: StreamedListFile?) async throws -> MirroredList {
        let follower = try await self.source.nats.follower(of: self.name, from: from, as: "listsync snapshot \(self.name)")
        var result = MirroredList(watch: self.name)
        /// Whether a changeset came after the snapshot written to `file`.
        var overtaken = false
        try await NATSStreamOptions.readingStream {
            try await follower.follow(from: result, after: 0, delivery: file == nil ? .assembled : .chunksWithoutList) { update in
                switch update {
                case .snapshotChunk(let chunk, _, _):
                    try file?.receive(chunk)
                case .snapshot(let mirror, _, _):
                    try file?.finish()
                    result = mirror
                    overtaken = false
                case .changeset(_, let mirror, _):
                    file?.discard()
                    result = mirror
                    overtaken = true
                case .caughtUp(let mirror):
                    result = mirror
                    return false
                case .skipped(let reason, _):
                    OutputWriter.writeStandardError("listsync: \(self.name): \(reason)\n")
                }
                return true
            }
        }
        guard let file else {
            guard result.hasList else { throw ClientFailure.data("the stream holds no snapshot of \(self.name)") }
            return result
        }
        if file.isFinished, !overtaken { return result }
        file.discard()
        let whole = try await self.streamMirror(from: from, writingTo: nil)
        try file.replace(with: file.output.bytes(of: whole))
        return whole
    }

    /// `the watch "NAME" is invalid: REASON` when the watch's file is invalid or missing now.
    static func staleness(of mirror: MirroredList) -> String? {
        guard mirror.watchState == .invalid || mirror.watchState == .missing else { return nil }
        return "the watch \"\(mirror.watch)\" is \(mirror.watchState.rawValue)\(mirror.watchProblem.map { ": \($0)" } ?? "")"
    }
}

/// A changeset came after the snapshot ``SnapshotCommand`` streamed to its file (the watch was
/// still loading, and read its file again): the file holds a version that is no longer current.
struct SnapshotOvertaken: Error {}
