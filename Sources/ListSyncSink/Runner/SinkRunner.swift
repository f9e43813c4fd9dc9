import ListFormats
import ListSyncClient
import ListSyncProtocol

/// Keeps a table equal to a watched list: resumes from the cursor the table holds, writes each
/// changeset's rows with its cursor in one transaction, replaces everything on a snapshot.
///
/// Exactly once per cursor: the cursor row and the rows commit together, and the sink subscribes
/// `since` the committed cursor, so a sink killed at any moment resumes with the first
/// changeset the table does not have. Fed by a stream, the stream sequence commits with them
/// too (``SinkStreamPlace``), and the sink reads on from the message after it.
public struct SinkRunner {
    /// Where the list comes from.
    public var source: SinkSource
    /// The watch.
    public var watch: String
    /// Where the table is.
    public var store: any SinkStore
    /// Whether to read the table back after each commit and compare its digest with the
    /// daemon's (O(*n*) per commit).
    public var verify: Bool

    /// A sink of `watch` from the daemon `client` talks to into `store`.
    public init(client: ListSyncClient, watch: String, store: any SinkStore, verify: Bool = false) {
        self.init(source: .daemon(client), watch: watch, store: store, verify: verify)
    }

    /// A sink of `watch` from `source` into `store`.
    public init(source: SinkSource, watch: String, store: any SinkStore, verify: Bool = false) {
        self.source = source
        self.watch = watch
        self.store = store
        self.verify = verify
    }

    /// How one subscription ended.
    private enum Outcome {
        case resynchronize(String)
        case finished(Ending)
    }

    /// Why a sink stopped without an error.
    public enum Ending: Sendable, Hashable {
        /// The watch left the daemon's configuration.
        case removed
        /// The watch now reads its file differently (another format, sections or none: a
        /// reload started a new epoch): the table needs another layout. Open the store again
        /// with the layout for the watch as it is now and run again; its snapshot recreates the
        /// table.
        case layoutChanged
        /// The subscription ended on request.
        case ended
    }

    /// Runs until the watch is removed from the daemon's configuration or needs another table
    /// layout (returns why), the subscription fails for good, or the database fails (throws).
    public func run(reporting report: (SinkEvent) -> Void) async throws -> Ending {
        let table = SinkTable(store: self.store)
        try await table.load()
        var resyncs = 0
        while true {
            let mirror = table.cursor.map { MirroredList(watch: self.watch, following: $0) } ?? MirroredList(watch: self.watch)
            let outcome: Outcome
            switch self.source {
            case .daemon(let client):
                outcome = try await client.withMirror(resuming: mirror) { updates -> Outcome in
                    for try await update in updates {
                        if let outcome = try await self.handle(update, in: table, reporting: report) { return outcome }
                    }
                    return .finished(.ended)
                }
            case .stream(let follower):
                outcome = try await self.follow(follower, from: mirror, into: table, reporting: report)
            }
            switch outcome {
            case .resynchronize(let reason):
                resyncs += 1
                report(.resynchronizing(reason: reason, count: resyncs))
                table.forget()
            case .finished(let ending):
                return ending
            }
        }
    }

    /// Follows the stream into `table` from `mirror` (the table's cursor, or none): from the
    /// message after the table's place in this stream, else from the stream's start (or its
    /// latest snapshot, without a cursor). The outcome when following must end.
    private func follow(
        _ follower: JetStreamFollower, from mirror: MirroredList, into table: SinkTable, reporting report: (SinkEvent) -> Void
    ) async throws -> Outcome {
        let place = table.streamPlace.flatMap { $0.stream == follower.stream ? $0.sequence : nil } ?? 0
        var outcome = Outcome.finished(.ended)
        try await follower.follow(from: mirror, after: place) { update in
            let result: Outcome?
            switch update {
            case .snapshot(let mirror, let sequence, let layout):
                guard let cursor = mirror.cursor else { return true }
                result = try await self.handle(
                    MirrorUpdate(event: .snapshot(cursor: cursor), mirror: mirror, phase: .streaming, isCurrent: false), in: table,
                    from: SinkStreamPlace(stream: follower.stream, sequence: sequence), layout: layout, reporting: report)
            case .changeset(let changeset, let mirror, let sequence):
                result = try await self.handle(
                    MirrorUpdate(event: .changeset(changeset), mirror: mirror, phase: .streaming, isCurrent: false), in: table,
                    from: SinkStreamPlace(stream: follower.stream, sequence: sequence), reporting: report)
            case .skipped(let reason, _):
                report(.warning(reason))
                result = nil
            case .caughtUp, .snapshotChunk:
                result = nil
            }
            guard let result else { return true }
            outcome = result
            return false
        }
        return outcome
    }

    /// Applies one update to `table` (that came `from` a place in a stream, with the watch's
    /// `layout` its snapshot's headers gave); the outcome when the subscription must end.
    private func handle(
        _ update: MirrorUpdate, in table: SinkTable, from place: SinkStreamPlace? = nil, layout: JetStreamWatchLayout? = nil,
        reporting report: (SinkEvent) -> Void
    ) async throws -> Outcome? {
        switch update.event {
        case .snapshot(let cursor):
            switch self.source {
            case .daemon(let client):
                if await self.layoutChanged(sectioned: update.mirror.isSectioned, asking: client) { return .finished(.layoutChanged) }
            case .stream:
                // Each snapshot of the stream says how the watch read its file then (an older
                // epoch's may differ from the last message's): the table follows it.
                self.store.layout = Self.layout(self.store.layout, following: layout, sectioned: update.mirror.isSectioned)
            }
            let rows = try await table.replace(with: update.mirror, at: cursor, streamPlace: place)
            report(.replaced(cursor: cursor, rows: rows))
            guard let digest = update.mirror.digest else { return nil }
            return try await self.mismatch(expected: digest, schema: table.schema ?? update.mirror.schema, version: update.mirror.digestVersion)
                .map(Outcome.resynchronize)
        case .changeset(let changeset):
            let result = await Self.applying(changeset, mirror: update.mirror, to: table, from: place)
            switch result {
            case .success(let commit):
                report(commit.refilled ? .refilled(cursor: changeset.cursor, rows: commit.rows) : .applied(cursor: changeset.cursor, rows: commit.rows))
                // The table's columns: a mirror resumed from a cursor has none of its own.
                return try await self.mismatch(
                    expected: changeset.digest, schema: table.schema ?? update.mirror.schema, version: update.mirror.digestVersion)
                    .map(Outcome.resynchronize)
            case .failure(let error) where error.code == .diverged:
                return .resynchronize(error.message)
            case .failure(let error):
                throw error
            }
        case .status(let status):
            report(.status(status))
            return status.state == .removed ? .finished(.removed) : nil
        case .disconnected(let error, let retryIn):
            report(.disconnected(error, retryIn: retryIn))
            return nil
        case .subscribed(let subscription):
            report(.subscribed(subscription))
            return nil
        case .resyncing, .snapshotChunk:
            return nil
        }
    }

    /// `table.apply(changeset, mirror:)`, its failure as a value (a divergence resynchronizes,
    /// the rest is thrown).
    private static func applying(
        _ changeset: ChangesetMessage, mirror: MirroredList, to table: SinkTable, from place: SinkStreamPlace?
    ) async -> Result<SinkTable.Commit, SinkError> {
        do {
            return .success(try await table.apply(changeset, mirror: mirror, streamPlace: place))
        } catch {
            return .failure(error)
        }
    }

    /// Whether the watch's list no longer fits the store's layout: sectioned or not, CSV or JSON,
    /// its key (asked of the daemon through `client`; when it does not answer, the sections alone
    /// decide).
    private func layoutChanged(sectioned: Bool, asking client: ListSyncClient) async -> Bool {
        Self.layout(self.store.layout, following: await JetStreamWatchLayout.asked(of: client, watch: self.watch), sectioned: sectioned)
            != self.store.layout
    }

    /// `layout` for a watch that reads its file as `watch` says (when it says) and is
    /// `sectioned`: the same table and projected columns.
    private static func layout(_ layout: SinkTableLayout, following watch: JetStreamWatchLayout?, sectioned: Bool) -> SinkTableLayout {
        var layout = layout
        layout.sectioned = sectioned
        if let watch {
            layout.kind = SinkTableLayout.RecordKind(format: watch.format)
            layout.key = SinkTableLayout.primaryKey(ofWatchKey: watch.key)
        }
        return layout
    }

    /// With `verify`, why the table's digest — each row's hash recomputed from its values — is
    /// not `expected` (a `version` digest); `nil` when it is (or without).
    private func mismatch(expected: ListDigest, schema: ListSchema, version: DigestVersion) async throws(SinkError) -> String? {
        guard self.verify else { return nil }
        let stored: ListDigest
        do {
            stored = try await self.store.storedDigest(schema: schema, version: version)
        } catch where error.code == .diverged {
            return error.message
        }
        return stored == expected ? nil : "the table's digest is \(stored), the daemon's \(expected)"
    }
}
