import ListSyncClient

/// Puts the protocol lines of a subject back together from their parts, as they arrive in
/// stream order. A part that does not continue the line being assembled (a publisher that died
/// mid-line and was followed by a new line) drops the unfinished line. A line is bounded in
/// bytes, as on the socket: one that grows past ``limit`` is dropped, and
/// ``takeOversized()`` says which, once.
struct JetStreamLineAssembly {
    private var envelope: JetStreamEnvelope?
    private var bytes: [UInt8] = []
    private var oversized: JetStreamEnvelope?
    /// The longest line kept, in bytes: by default the socket client's, 256 MiB
    /// (`ClientConfiguration.maximumLineLength`).
    let limit: Int

    init(limit: Int = ClientConfiguration(socketPath: "").maximumLineLength) {
        self.limit = limit
    }

    /// Whether a line is half assembled.
    var isAssembling: Bool { self.envelope != nil }

    /// Adds one message's part; the whole line when it was the last part.
    mutating func add(_ payload: [UInt8], envelope: JetStreamEnvelope) -> (JetStreamEnvelope, [UInt8])? {
        if envelope.part == 1 {
            self.envelope = envelope
            self.bytes = payload
        } else if let current = self.envelope, current.cursor == envelope.cursor, current.kind == envelope.kind,
            current.chunk == envelope.chunk, current.parts == envelope.parts, current.part + 1 == envelope.part
        {
            self.envelope = envelope
            self.bytes += payload
        } else {
            self.envelope = nil
            self.bytes = []
            return nil
        }
        if self.bytes.count > self.limit {
            self.oversized = envelope
            self.envelope = nil
            self.bytes = []
            return nil
        }
        guard envelope.completesLine else { return nil }
        defer {
            self.envelope = nil
            self.bytes = []
        }
        return (envelope, self.bytes)
    }

    /// The line last dropped for growing past ``limit`` (its envelope, at the part that took it
    /// over), once; `nil` when none was.
    mutating func takeOversized() -> JetStreamEnvelope? {
        defer { self.oversized = nil }
        return self.oversized
    }
}
