import ListFormats
import ListSyncProtocol

/// A subscriber to one watch that keeps a ``TestMirror``: the daemon's behaviour as a client sees it.
final class MirrorSubscriber {
    let client: ProtocolClient
    let watch: String
    private(set) var mirror: TestMirror?
    private(set) var status: StatusMessage?
    /// Every status received, in order.
    private(set) var statuses: [StatusMessage] = []
    /// When set, the mirror's document after every snapshot and changeset is kept in ``documents``.
    var recordsDocuments = false
    /// The mirror's document at every cursor received, when ``recordsDocuments`` is set.
    private(set) var documents: [ListDocument] = []
    /// The cursors of the changesets applied, in order.
    private(set) var changesets: [Cursor] = []
    /// The changesets applied, in order, as received.
    private(set) var changesetMessages: [ChangesetMessage] = []
    /// Every snapshot completed.
    private(set) var snapshots = 0
    private var chunks: [SnapshotChunk] = []
    /// Every changeset part received (protocol version 2), in order; their changesets, once
    /// whole, are applied and kept in ``changesetMessages`` like any other.
    private(set) var changesetParts: [ChangesetPartMessage] = []
    private var assembly = ChangesetPartAssembly(maximumBytes: 1 << 30)

    /// The digest definition the connection agreed on in `hello`.
    private(set) var digestVersion = DigestVersion.v1

    private init(client: ProtocolClient, watch: String, mirror: TestMirror?) {
        self.client = client
        self.watch = watch
        self.mirror = mirror
    }

    /// Connects to `socketPath`, says hello and subscribes to `watch`; with `mirror`, resumes
    /// from that mirror's cursor and applies what follows to it. It offers `protocols` in `hello`
    /// and checks digests as the version agreed defines them.
    static func connect(
        socketPath: String, watch: String, since: Cursor? = nil, mirror: TestMirror? = nil, protocols: [Int] = [1]
    ) async throws -> MirrorSubscriber {
        let subscriber = MirrorSubscriber(client: try await ProtocolClient.connect(to: socketPath), watch: watch, mirror: mirror)
        subscriber.digestVersion = DigestVersion(protocol: try await subscriber.client.hello(protocols: protocols).protocolVersion)
        try await subscriber.resubscribe(since: mirror?.cursor ?? since)
        return subscriber
    }

    /// The subscription's reply.
    private(set) var reply: ReplyResult.Subscription?

    /// Subscribes (again) to the watch, from `since`.
    func resubscribe(since: Cursor?) async throws {
        try self.take(try await self.client.call { .subscribe(id: $0, watch: self.watch, since: since) })
    }

    private func take(_ result: ReplyResult) throws {
        guard case .subscribed(let reply) = result else { throw ProtocolClient.Failure(description: "not a subscribe reply") }
        self.reply = reply
    }

    /// Handles one message from the server.
    func handle(_ message: ServerMessage) throws {
        switch message {
        case .snapshot(let chunk) where chunk.watch == self.watch:
            if chunk.chunk == 0 { self.chunks = [] }
            self.chunks.append(chunk)
            if chunk.last {
                let mirror = try TestMirror(snapshot: self.chunks, digestVersion: self.digestVersion)
                self.mirror = mirror
                self.snapshots += 1
                self.chunks = []
                if self.recordsDocuments { self.documents.append(mirror.document) }
            }
        case .changeset(let changeset) where changeset.watch == self.watch:
            try self.apply(changeset)
        case .changesetPart(let part) where part.watch == self.watch:
            self.changesetParts.append(part)
            if let changeset = try self.assembly.add(part) {
                try self.apply(changeset)
            }
        case .status(let status) where status.watch == self.watch:
            self.status = status
            self.statuses.append(status)
        default:
            break
        }
    }

    private func apply(_ changeset: ChangesetMessage) throws {
        guard var mirror = self.mirror else { throw ProtocolClient.Failure(description: "a changeset before any snapshot") }
        try mirror.apply(changeset)
        self.mirror = mirror
        self.changesets.append(changeset.cursor)
        self.changesetMessages.append(changeset)
        if self.recordsDocuments { self.documents.append(mirror.document) }
    }

    /// Handles messages until `condition` holds; `false` when it still does not after `timeout`.
    @discardableResult
    func receiveUntil(timeout: Duration = .seconds(10), _ condition: (MirrorSubscriber) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition(self) {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            do {
                try self.handle(try await self.client.receive(timeout: remaining))
            } catch let failure as ProtocolClient.Failure where failure.description.hasPrefix("no message within") {
                return condition(self)
            }
        }
        return true
    }

    /// Waits until the mirror holds exactly what `file` holds, read with `options`.
    func receiveUntilMirroring(_ path: String, options: ReadOptions, timeout: Duration = .seconds(10)) async throws -> Bool {
        try await self.receiveUntil(timeout: timeout, Self.mirrors(path, options: options))
    }

    /// Whether a subscriber's mirror holds what `path` holds, read with `options` — re-read at
    /// every call, for the file may still be settling.
    private static func mirrors(_ path: String, options: ReadOptions) -> (MirrorSubscriber) -> Bool {
        var expected: ListDocument?
        return { subscriber in
            if let list = try? ListReader(options: options).read(contentsOfFile: path) { expected = list.document }
            return subscriber.mirror?.document == expected && expected != nil
        }
    }
}
