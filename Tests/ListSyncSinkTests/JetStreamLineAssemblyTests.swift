import ListSyncProtocol
import Testing
@testable import ListSyncSink

/// Lines put back together from a stream's parts are bounded in bytes, as on the socket: a
/// message announcing more parts than any line may have cannot make a reader hold them all.
@Suite struct JetStreamLineAssemblyTests {
    static func envelope(part: Int, of parts: Int) -> JetStreamEnvelope {
        JetStreamEnvelope(
            watch: "w", cursor: Cursor(epoch: Epoch(rawValue: 7), seq: 3), kind: .changeset, part: part, parts: parts, reset: false, after: 0)
    }

    @Test func aLineIsJoinedFromItsPartsWithinTheLimit() {
        var assembly = JetStreamLineAssembly(limit: 10)
        #expect(assembly.add(Array("abcd".utf8), envelope: Self.envelope(part: 1, of: 2)) == nil)
        let line = assembly.add(Array("efgh".utf8), envelope: Self.envelope(part: 2, of: 2))
        #expect(line.map { String(decoding: $0.1, as: UTF8.self) } == "abcdefgh")
        #expect(assembly.takeOversized() == nil)
    }

    @Test func aLineThatGrowsPastTheLimitIsDroppedAndSaidOnce() {
        var assembly = JetStreamLineAssembly(limit: 10)
        #expect(assembly.add(Array("abcdef".utf8), envelope: Self.envelope(part: 1, of: 1_000_000_000)) == nil)
        #expect(assembly.add(Array("ghijkl".utf8), envelope: Self.envelope(part: 2, of: 1_000_000_000)) == nil)
        #expect(!assembly.isAssembling, "the unfinished line is dropped")
        #expect(assembly.takeOversized()?.part == 2)
        #expect(assembly.takeOversized() == nil, "said once")
        // Its later parts no longer continue a line; the next line is read as usual.
        #expect(assembly.add(Array("mn".utf8), envelope: Self.envelope(part: 3, of: 1_000_000_000)) == nil)
        #expect(assembly.add(Array("ok".utf8), envelope: Self.envelope(part: 1, of: 1)).map { String(decoding: $0.1, as: UTF8.self) } == "ok")
    }
}
