import ListSyncProtocol

/// What the headers of one stream message say: which protocol line it carries (or which part of
/// it), at which cursor (docs/PROTOCOL.md, "The NATS transport").
public struct JetStreamEnvelope: Sendable, Hashable {
    /// The kind of protocol line.
    public enum Kind: String, Sendable {
        case snapshot
        case changeset
    }

    /// The watch.
    public var watch: String
    /// The cursor of the snapshot or changeset.
    public var cursor: Cursor
    /// Snapshot or changeset.
    public var kind: Kind
    /// Which part of the line this message is, from 1.
    public var part: Int
    /// How many parts the line was split into (1 when it fits one message).
    public var parts: Int
    /// The protocol version of the line (`ListSync-Protocol`), whose digest it carries: 1 or 2.
    public var protocolVersion: Int
    /// Which line of its version the message carries, from 0: for a snapshot, which of its
    /// chunks (lines, about 256 KiB each); for a changeset at protocol version 2, which of its
    /// parts (the line's `part`, *Changeset parts*). 0 for a changeset at version 1, and for a
    /// snapshot published whole by an older sink.
    public var chunk: Int
    /// Whether the line is the last of its version: a snapshot's last chunk (the one with the
    /// digest), a changeset's last part; always true for a changeset at version 1, and for a
    /// snapshot published whole by an older sink.
    public var lastChunk: Bool
    /// A snapshot that replaces what the stream said before (the sink fell behind the daemon's
    /// history, or a new epoch started).
    public var reset: Bool
    /// For a snapshot: the subject sequence it was published after, which tells two
    /// publications of a snapshot at one cursor apart in their message IDs.
    public var after: UInt64
    /// The stream sequence of the first part of the latest complete snapshot before this
    /// message, where a reader without a list starts; `nil` when there is none.
    public var latestSnapshot: UInt64?
    /// How the watch reads its file; `nil` in a message of a sink older than these headers.
    public var layout: JetStreamWatchLayout?

    /// An envelope.
    public init(
        watch: String, cursor: Cursor, kind: Kind, part: Int, parts: Int, chunk: Int = 0, lastChunk: Bool = true, reset: Bool,
        after: UInt64, latestSnapshot: UInt64? = nil, layout: JetStreamWatchLayout? = nil, protocolVersion: Int = 1
    ) {
        self.protocolVersion = protocolVersion
        self.layout = layout
        self.chunk = chunk
        self.lastChunk = lastChunk
        self.watch = watch
        self.cursor = cursor
        self.kind = kind
        self.part = part
        self.parts = parts
        self.reset = reset
        self.after = after
        self.latestSnapshot = latestSnapshot
    }

    /// Whether this is the last part of its line (a changeset, one of its parts, or one chunk of a snapshot).
    public var completesLine: Bool { self.part == self.parts }

    /// Whether this is the last message of its changeset or snapshot (the last part of a
    /// snapshot's last chunk): with it the stream holds the whole version at its cursor.
    public var completesCursor: Bool { self.completesLine && self.lastChunk }

    /// `Nats-Msg-Id`: unique per message and derived from the cursor, so that the server drops
    /// a message published again after a crash: `WATCH/EPOCH:SEQ/changeset/PART` (protocol
    /// version 1), `WATCH/EPOCH:SEQ/changeset/CHUNK/PART` (version 2, `CHUNK` the changeset's
    /// part) or `WATCH/EPOCH:SEQ/snapshot-AFTER/CHUNK/PART`.
    public var messageID: String {
        switch self.kind {
        case .changeset where self.protocolVersion >= 2: return "\(self.watch)/\(self.cursor)/changeset/\(self.chunk)/\(self.part)"
        case .changeset: return "\(self.watch)/\(self.cursor)/changeset/\(self.part)"
        case .snapshot: return "\(self.watch)/\(self.cursor)/snapshot-\(self.after)/\(self.chunk)/\(self.part)"
        }
    }

    /// The header names.
    public enum Header {
        public static let protocolVersion = "ListSync-Protocol"
        public static let watch = "ListSync-Watch"
        public static let cursor = "ListSync-Cursor"
        public static let type = "ListSync-Type"
        public static let part = "ListSync-Part"
        public static let chunk = "ListSync-Chunk"
        public static let lastChunk = "ListSync-Last-Chunk"
        public static let reset = "ListSync-Reset"
        public static let latestSnapshot = "ListSync-Snapshot"
        public static let format = "ListSync-Format"
        public static let sectioned = "ListSync-Sectioned"
        public static let key = "ListSync-Key"
    }

    /// The headers the message carries besides `Nats-Msg-Id` and the expected sequence.
    public var headers: [(String, String)] {
        var headers = [
            (Header.protocolVersion, String(self.protocolVersion)), (Header.watch, self.watch), (Header.cursor, self.cursor.description),
            (Header.type, self.kind.rawValue), (Header.part, "\(self.part)/\(self.parts)"),
        ]
        // A changeset at version 2 names its part as a snapshot names its chunk.
        if self.kind == .snapshot || self.protocolVersion >= 2 {
            headers.append((Header.chunk, String(self.chunk)))
            if self.lastChunk { headers.append((Header.lastChunk, "true")) }
        }
        if self.reset { headers.append((Header.reset, "true")) }
        if let latestSnapshot = self.latestSnapshot { headers.append((Header.latestSnapshot, String(latestSnapshot))) }
        if let layout = self.layout { headers += layout.headers }
        return headers
    }

    /// The envelope of a message with `headers`; `nil` when they are not a ListSync message's.
    public init?(headers: [String: String], messageID: String? = nil) {
        guard let cursorText = headers[Header.cursor], let cursor = Cursor(cursorText),
            let kind = headers[Header.type].flatMap(Kind.init(rawValue:)),
            let partText = headers[Header.part]
        else { return nil }
        let numbers = partText.split(separator: "/")
        guard numbers.count == 2, let part = Int(numbers[0]), let parts = Int(numbers[1]), part >= 1, part <= parts else { return nil }
        // Without ListSync-Protocol, version 1 (every sink has written it).
        let version = headers[Header.protocolVersion].map { Int($0) } ?? 1
        guard let version, version >= 1 else { return nil }
        // Without ListSync-Chunk, a snapshot published whole (by a sink older than chunks), or a
        // changeset at version 1: the line's only one.
        let chunk: Int
        let lastChunk: Bool
        if let text = headers[Header.chunk] {
            guard let index = Int(text), index >= 0 else { return nil }
            (chunk, lastChunk) = (index, headers[Header.lastChunk] == "true")
        } else {
            (chunk, lastChunk) = (0, true)
        }
        self.init(
            watch: headers[Header.watch] ?? "", cursor: cursor, kind: kind, part: part, parts: parts, chunk: chunk, lastChunk: lastChunk,
            reset: headers[Header.reset] == "true", after: 0, latestSnapshot: headers[Header.latestSnapshot].flatMap(UInt64.init),
            layout: JetStreamWatchLayout(headers: headers), protocolVersion: version)
    }

    /// Where the latest complete snapshot up to `message` (of this envelope) starts: the message
    /// itself for a snapshot in one message (one chunk in one part), else what its header names.
    public func latestSnapshot(at sequence: UInt64) -> UInt64? {
        self.kind == .snapshot && self.parts == 1 && self.chunk == 0 && self.lastChunk ? sequence : self.latestSnapshot
    }
}
