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
        var state = try await self.store.load()
        var resyncs = 0
        if let state { report(.resuming(state.cursor)) }
        while true {
            let mirror = state.map { MirroredList(watch: self.watch, following: $0.cursor) } ?? MirroredList(watch: self.watch)
            let outcome = try await self.client.withMirror(resuming: mirror) { updates -> Outcome in
                for try await update in updates {
                    switch update.event {
                    case .snapshot(let cursor):
                        if await self.layoutChanged(sectioned: update.mirror.isSectioned) { return .finished(.layoutChanged) }
                        let replaced = SinkState(list: SinkList(snapshot: update.mirror, cursor: cursor))
                        try await self.store.replace(with: update.mirror, state: replaced)
                        state = replaced
                        report(.replaced(cursor: cursor, rows: update.mirror.recordCount))
                        if let mismatch = try await self.mismatch(expected: replaced.list.digest) { return .resynchronize(mismatch) }
                    case .changeset(let changeset):
                        guard var current = state else { return .resynchronize("a changeset arrived before any snapshot") }
                        let writes: SinkWrites
                        do {
                            writes = try current.list.apply(changeset)
                        } catch {
                            return .resynchronize("\(error)")
                        }
                        try await self.store.apply(writes, state: current, digest: changeset.digest)
                        state = current
                        report(.applied(cursor: changeset.cursor, rows: writes.rowCount))
                        if let mismatch = try await self.mismatch(expected: changeset.digest) { return .resynchronize(mismatch) }
                    case .status(let status):
                        report(.status(status))
                        if status.state == .removed { return .finished(.removed) }
                    case .disconnected(let error, let retryIn):
                        report(.disconnected(error, retryIn: retryIn))
                    case .subscribed, .resyncing:
                        continue
                    }
                }
                return .finished(.ended)
            }
            switch outcome {
            case .resynchronize(let reason):
                resyncs += 1
                report(.resynchronizing(reason: reason, count: resyncs))
                state = nil
            case .finished(let ending):
                return ending
            }
        }
    }

    /// Whether the watch's list no longer fits the store's layout: sectioned or not, CSV or JSON
    /// (asked of the daemon; when it does not answer, the sections alone decide).
    private func layoutChanged(sectioned: Bool) async -> Bool {
        let layout = self.store.layout
        if sectioned != layout.sectioned { return true }
        guard let summary = try? await self.client.watches().first(where: { $0.name == self.watch }) else { return false }
        return SinkTableLayout.RecordKind(format: summary.format) != layout.kind
    }

    /// With `verify`, why the table's digest is not `expected`; `nil` when it is (or without).
    private func mismatch(expected: ListDigest) async throws(SinkError) -> String? {
        guard self.verify else { return nil }
        let stored = try await self.store.storedDigest()
        return stored == expected ? nil : "the table's digest is \(stored), the daemon's \(expected)"
    }
}
