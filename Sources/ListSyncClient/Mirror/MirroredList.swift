import ListFormats
import ListSyncProtocol

/// A subscriber's copy of one watched list, built from snapshots and kept current by applying
/// changesets — each one checked before it counts.
///
/// A changeset applies only when its `prev_seq` is the mirror's `seq` (same server history); after
/// applying, the whole list's ``ListDigest`` must equal the daemon's. A snapshot counts once all
/// its chunks have arrived and its digest matches. Anything that fails leaves the mirror exactly
/// at its last verified version and throws a ``MirrorError`` whose ``MirrorError/recovery`` says
/// how to resubscribe: a mirror never holds a list the daemon did not have.
///
/// ```swift
/// var mirror = MirroredList(watch: "products")
/// try mirror.apply(chunk)        // each snapshot chunk, in order
/// try mirror.apply(changeset)    // each changeset
/// let bytes = ListWriter(format: .json).write(mirror.document)
/// ```
///
/// A mirror can also start from a cursor alone (``init(watch:following:)``): it then follows
/// changesets by their sequence numbers without a list, which is what a client that only streams
/// changes after a known version needs; the first snapshot gives it a list.
///
/// Copies share storage: applying a changeset to a mirror nobody else holds a copy of changes
/// only what the changeset touches; its digest costs what it changed at protocol version 2 (the
/// mirror keeps the digest's ``ListDigestTree``), an O(*n*) pass over the records' hashes at
/// version 1.
public struct MirroredList: Sendable {
    /// The watch this mirror follows.
    public let watch: String

    /// What the mirror knows of the list.
    enum Basis: Sendable {
        /// Nothing yet: the first snapshot gives the list.
        case empty
        /// A version, but not the list: changesets are followed by sequence only (their digests
        /// cannot be checked without the list).
        case position(Cursor)
        /// The list at a verified version.
        case list(MirrorContent)
    }

    /// What the mirror knows of the list.
    var basis: Basis
    /// The digest definition snapshots and changesets are checked with: version 1 until a
    /// connection agrees on protocol version 2 (``useDigestVersion(_:)``); a stream of lines
    /// published at version 1 (the NATS transport) keeps it.
    public private(set) var digestVersion = DigestVersion.v1
    /// The chunks of a snapshot still arriving; the list changes only when it is complete.
    var pendingSnapshot: SnapshotAssembly?

    /// The watch's state as the daemon last reported it (`loading` until a status arrives).
    public private(set) var watchState: WatchState = .loading
    /// Why the watch's file is invalid or missing, with the position in the file when the daemon
    /// gave one; `nil` while the state is `ok`.
    public private(set) var watchProblem: WatchProblem?

    /// An empty mirror of `watch`: subscribe without a cursor and apply the snapshot that follows.
    public init(watch: String) {
        self.watch = watch
        self.basis = .empty
    }

    /// A mirror of `watch` that knows it is at `cursor` but holds no list: it follows changesets
    /// after `cursor` by their sequence numbers until a snapshot gives it the list.
    public init(watch: String, following cursor: Cursor) {
        self.watch = watch
        self.basis = .position(cursor)
    }

    /// Checks the next snapshots and changesets with `version`'s digest (the protocol version a
    /// connection agreed in `hello`); the list held, if any, gets its digest in that version.
    ///
    /// - Complexity: O(*n*) when the version changes and the mirror holds a list; O(1) otherwise.
    public mutating func useDigestVersion(_ version: DigestVersion) {
        guard version != self.digestVersion else { return }
        self.digestVersion = version
        if case .list(var content) = self.basis {
            content.tree = MirrorContent.tree(schema: content.schema, sections: content.sections, version: version)
            content.digest = content.tree?.digest ?? MirrorContent.digest(schema: content.schema, sections: content.sections, version: version)
            content.digestVersion = version
            self.basis = .list(content)
        }
    }

    /// The version the mirror is at: the cursor of the last snapshot or changeset applied (or the
    /// one it was started from); `nil` before the first snapshot.
    public var cursor: Cursor? {
        switch self.basis {
        case .empty: return nil
        case .position(let cursor): return cursor
        case .list(let content): return content.cursor
        }
    }

    /// Whether the mirror holds the list (rather than nothing, or just a cursor).
    public var hasList: Bool {
        if case .list = self.basis { return true }
        return false
    }

    /// The sections of the list, in order; a linear list is one section with model `null`. Empty
    /// when the mirror holds no list.
    public var sections: [MirroredSection] {
        guard case .list(let content) = self.basis else { return [] }
        return content.sections
    }

    /// Whether the list is sectioned (`section_by`, or a JSON object of arrays).
    public var isSectioned: Bool {
        guard case .list(let content) = self.basis else { return false }
        return content.sectioned
    }

    /// The list's columns: the CSV header, or the member names of JSON records.
    public var schema: ListSchema {
        guard case .list(let content) = self.basis else { return ListSchema(columns: []) }
        return content.schema
    }

    /// The digest of the list, verified against the daemon's; `nil` without a list.
    public var digest: ListDigest? {
        guard case .list(let content) = self.basis else { return nil }
        return content.digest
    }

    /// The number of records, all sections together. O(sections).
    public var recordCount: Int {
        self.sections.reduce(0) { $0 + $1.records.count }
    }

    /// Every record's value, sections one after the other. O(*n*).
    public var values: [ListValue] {
        self.sections.flatMap { $0.records.map(\.value) }
    }

    /// The list as a `ListDocument`, ready for `ListWriter`: sections (named by their model) when
    /// the list is sectioned, one list of records otherwise. O(*n*).
    public var document: ListDocument {
        guard self.isSectioned else { return .records(self.values) }
        return .sections(self.sections.map { ListDocument.Section(value: $0.model.model, records: $0.records.map(\.value)) })
    }

    /// Records the watch's state from a `status` message.
    ///
    /// - Throws: ``MirrorError/wrongWatch(expected:received:)`` for another watch's status.
    public mutating func apply(_ status: StatusMessage) throws(MirrorError) {
        try self.checkWatch(status.watch)
        self.watchState = status.state
        self.watchProblem = status.error
    }

    /// Forgets the chunks of a snapshot that will not be completed (the connection was lost, or
    /// the subscription restarted); the list stays as it is.
    public mutating func discardPartialSnapshot() {
        self.pendingSnapshot = nil
    }

    func checkWatch(_ watch: String) throws(MirrorError) {
        guard watch == self.watch else { throw .wrongWatch(expected: self.watch, received: watch) }
    }
}
