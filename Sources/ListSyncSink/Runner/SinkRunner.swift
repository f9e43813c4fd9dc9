import ListFormats
import ListSyncClient
import ListSyncProtocol

/// Keeps a table equal to a watched list: resumes from the cursor the table holds, writes each
/// changeset's rows with its cursor in one transaction, replaces everything on a snapshot.
///
/// Exactly once per cursor: the cursor row and the rows commit together, and the sink subscribes
/// `since` the committed cursor, so a sink killed at any moment resumes with the first
/// changeset the table does not have.
public struct SinkRunner {
    /// Where the list comes from.
    public var client: ListSyncClient
    /// The watch.
    public var watch: String
    /// Where the table is.
    public var store: any SinkStore
    /// Whether to read the table back after each commit and compare its digest with the
    /// daemon's (O(*n*) per commit).
    public var verify: Bool

    /// A sink of `watch` from `client` into `store`.
    public init(client: ListSyncClient, watch: String, store: any SinkStore, verify: Bool = false) {
        self.client = client
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
            let outcome = try await self.client.withMirror(resuming: mirror) { updates -> Outcome in
                for try await update in updates {
                    if let outcome = try await self.handle(update, in: table, reporting: report) { return outcome }
                }
                return .finished(.ended)
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

    /// Applies one update to `table`; the outcome when the subscription must end.
    private func handle(_ update: MirrorUpdate, in table: SinkTable, reporting report: (SinkEvent) -> Void) async throws -> Outcome? {
        switch update.event {
        case .snapshot(let cursor):
            if await self.layoutChanged(sectioned: update.mirror.isSectioned) { return .finished(.layoutChanged) }
            let rows = try await table.replace(with: update.mirror, at: cursor)
            report(.replaced(cursor: cursor, rows: rows))
            guard let digest = update.mirror.digest else { return nil }
            return try await self.mismatch(expected: digest, schema: table.schema ?? update.mirror.schema).map(Outcome.resynchronize)
        case .changeset(let changeset):
            let result = await Self.applying(changeset, mirror: update.mirror, to: table)
            switch result {
            case .success(let commit):
                report(commit.refilled ? .refilled(cursor: changeset.cursor, rows: commit.rows) : .applied(cursor: changeset.cursor, rows: commit.rows))
                // The table's columns: a mirror resumed from a cursor has none of its own.
                return try await self.mismatch(expected: changeset.digest, schema: table.schema ?? update.mirror.schema)
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
    private static func applying(_ changeset: ChangesetMessage, mirror: MirroredList, to table: SinkTable) async -> Result<SinkTable.Commit, SinkError> {
        do {
            return .success(try await table.apply(changeset, mirror: mirror))
        } catch {
            return .failure(error)
        }
    }

    /// Whether the watch's list no longer fits the store's layout: sectioned or not, CSV or JSON,
    /// its key (asked of the daemon; when it does not answer, the sections alone decide).
    private func layoutChanged(sectioned: Bool) async -> Bool {
        let layout = self.store.layout
        if sectioned != layout.sectioned { return true }
        guard let summary = try? await self.client.watches().first(where: { $0.name == self.watch }) else { return false }
        return SinkTableLayout.RecordKind(format: summary.format) != layout.kind || SinkTableLayout.primaryKey(ofWatchKey: summary.key) != layout.key
    }

    /// With `verify`, why the table's digest — each row's hash recomputed from its values — is
    /// not `expected`; `nil` when it is (or without).
    private func mismatch(expected: ListDigest, schema: ListSchema) async throws(SinkError) -> String? {
        guard self.verify else { return nil }
        let stored: ListDigest
        do {
            stored = try await self.store.storedDigest(schema: schema)
        } catch where error.code == .diverged {
            return error.message
        }
        return stored == expected ? nil : "the table's digest is \(stored), the daemon's \(expected)"
    }
}
