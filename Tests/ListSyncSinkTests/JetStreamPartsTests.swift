import ListSyncProtocol
import Testing

@testable import ListSyncSink

/// A line is cut into parts that fit the server's maximum payload with their headers, whatever
/// the headers' size (a long watch name is in two of them).
@Suite struct JetStreamPartsTests {
    /// The headers a part of a line at `cursor` of a watch `watch` has, at their longest.
    static func headers(watch: String, parts: Int) -> [(String, String)] {
        let envelope = JetStreamEnvelope(
            watch: watch, cursor: Cursor(epoch: Epoch(rawValue: 7), seq: 3), kind: .snapshot, part: parts, parts: parts, reset: true,
            after: 12, latestSnapshot: UInt64.max, layout: JetStreamWatchLayout(format: "csv", sectioned: true, key: ["sku"]))
        return envelope.headers + [("Nats-Msg-Id", envelope.messageID), ("Nats-Expected-Last-Subject-Sequence", String(UInt64.max))]
    }

    @Test func everyPartFitsWithItsHeaders() throws {
        let watch = String(repeating: "w", count: 1500)
        let line = [UInt8](repeating: 65, count: 50_000)
        let maximum = 8192
        let parts = try JetStreamParts.split(line, maximumPayload: maximum) { Self.headers(watch: watch, parts: $0) }
        let headerBytes = JetStreamParts.headerBytes(Self.headers(watch: watch, parts: parts.count))
        #expect(headerBytes > 2 * 1500, "the watch's name is in two headers")
        for part in parts { #expect(part.count + headerBytes <= maximum) }
        #expect(parts.flatMap { $0 } == line, "the parts are the line")
        // As few parts as fit.
        #expect(parts.count == (line.count + (maximum - headerBytes) - 1) / (maximum - headerBytes))
    }

    @Test func headersThatLeaveNoRoomAreAnError() {
        let watch = String(repeating: "w", count: 5000)
        #expect(throws: JetStreamParts.HeadersTooLarge.self) {
            try JetStreamParts.split(Array("x".utf8), maximumPayload: 8192) { Self.headers(watch: watch, parts: $0) }
        }
    }

    /// A snapshot's chunk headers read back as written; a snapshot message without them (a sink
    /// older than chunks) is a whole snapshot, chunk 0 and last; only the last part of the last
    /// chunk completes the cursor, and only a snapshot in one message is its own latest snapshot.
    @Test func chunkHeadersReadBackAndOlderSnapshotsAreWhole() throws {
        let cursor = Cursor(epoch: Epoch(rawValue: 7), seq: 3)
        func envelope(chunk: Int, last: Bool, part: Int = 1, parts: Int = 1) -> JetStreamEnvelope {
            JetStreamEnvelope(
                watch: "w", cursor: cursor, kind: .snapshot, part: part, parts: parts, chunk: chunk, lastChunk: last, reset: false, after: 12,
                latestSnapshot: 5)
        }
        func read(_ envelope: JetStreamEnvelope, without: Set<String> = []) -> JetStreamEnvelope? {
            JetStreamEnvelope(headers: Dictionary(envelope.headers.filter { !without.contains($0.0) }, uniquingKeysWith: { first, _ in first }))
        }
        let middle = envelope(chunk: 4, last: false, part: 2, parts: 2)
        let read4 = try #require(read(middle))
        #expect(read4.chunk == 4 && !read4.lastChunk && read4.completesLine && !read4.completesCursor)
        #expect(middle.messageID == "w/\(cursor)/snapshot-12/4/2")
        let final = try #require(read(envelope(chunk: 5, last: true, part: 2, parts: 2)))
        #expect(final.lastChunk && final.completesCursor && final.latestSnapshot(at: 40) == 5)
        #expect(envelope(chunk: 0, last: true).latestSnapshot(at: 40) == 40, "a snapshot in one message is its own")
        #expect(envelope(chunk: 0, last: false).latestSnapshot(at: 40) == 5, "a first chunk is not a snapshot yet")
        let older = try #require(read(envelope(chunk: 0, last: true, part: 1, parts: 3), without: ["ListSync-Chunk", "ListSync-Last-Chunk"]))
        #expect(older.chunk == 0 && older.lastChunk && !older.completesCursor, "an older sink's snapshot is one line in parts")
    }

    /// A changeset's messages at protocol version 2 name their part in `ListSync-Chunk` (the last
    /// with `ListSync-Last-Chunk`) and in their ID; at version 1 they have neither, as before. A
    /// changeset cut short after some parts resumes from the cursor before it and skips exactly
    /// the messages the stream has, of its own version only.
    @Test func changesetPartsAtVersion2ReadBackAndAreTakenUpFromTheNextOne() throws {
        let cursor = Cursor(epoch: Epoch(rawValue: 7), seq: 3)
        func headers(_ envelope: JetStreamEnvelope) -> [String: String] {
            Dictionary(envelope.headers, uniquingKeysWith: { first, _ in first })
        }
        let part = JetStreamEnvelope(
            watch: "w", cursor: cursor, kind: .changeset, part: 1, parts: 2, chunk: 2, lastChunk: false, reset: false, after: 0, protocolVersion: 2)
        #expect(headers(part)["ListSync-Protocol"] == "2" && headers(part)["ListSync-Chunk"] == "2" && headers(part)["ListSync-Last-Chunk"] == nil)
        #expect(part.messageID == "w/\(cursor)/changeset/2/1")
        let read = try #require(JetStreamEnvelope(headers: headers(part)))
        #expect(read.protocolVersion == 2 && read.chunk == 2 && !read.lastChunk && !read.completesCursor)
        let version1 = JetStreamEnvelope(watch: "w", cursor: cursor, kind: .changeset, part: 1, parts: 2, reset: false, after: 0)
        #expect(headers(version1)["ListSync-Protocol"] == "1" && headers(version1)["ListSync-Chunk"] == nil)
        #expect(version1.messageID == "w/\(cursor)/changeset/1")
        var unknown = headers(part)
        unknown["ListSync-Protocol"] = "two"
        #expect(JetStreamEnvelope(headers: unknown) == nil, "a version that is not a number")

        let position = JetStreamPosition(sequence: 9, last: read)
        #expect(position.resumeCursor == Cursor(epoch: cursor.epoch, seq: 2))
        let published = position.published(of: .changeset, at: cursor, version: 2)
        #expect(published == JetStreamPosition.Published(line: 2, part: 1))
        #expect(published.contains(line: 1, part: 5) && published.contains(line: 2, part: 1))
        #expect(!published.contains(line: 2, part: 2) && !published.contains(line: 3, part: 1))
        #expect(position.published(of: .changeset, at: cursor, version: 1) == .nothing, "another version's parts are not taken up")
        #expect(position.published(of: .changeset, at: Cursor(epoch: cursor.epoch, seq: 2), version: 2) == .everything)
    }

    @Test func theKeyHeaderKeepsCommasAndPercents() {
        let layout = JetStreamWatchLayout(format: "json", sectioned: false, key: ["/a,b", "100%", "c"])
        let headers = Dictionary(layout.headers, uniquingKeysWith: { first, _ in first })
        #expect(JetStreamWatchLayout(headers: headers) == layout)
        #expect(JetStreamWatchLayout(headers: [:]) == nil, "no layout in a message of an older sink")
    }
}
