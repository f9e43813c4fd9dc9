import Testing
@testable import ListSyncDaemon

/// A version's bytes rebuilt from the version before and the ``ByteDelta`` between them — and
/// from a whole run of them by ``DeltaReplay`` — are the version's bytes exactly, whatever the
/// edit: in place, inserted, deleted, appended, truncated, rewritten, none.
struct DeltaReplayTests {
    /// A small deterministic generator, so a failure repeats.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            self.state = self.state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return self.state
        }
    }

    /// `bytes` edited at random: a range (at the start, the end, or anywhere) replaced by random
    /// bytes of another length, or appended to, or cut.
    static func edited(_ bytes: [UInt8], using generator: inout Generator) -> [UInt8] {
        var bytes = bytes
        let start = Int.random(in: 0...bytes.count, using: &generator)
        let end = Int.random(in: start...min(bytes.count, start + [0, 3, 50, 9000].randomElement(using: &generator)!), using: &generator)
        let inserted = (0..<Int.random(in: 0...[0, 4, 70, 9000].randomElement(using: &generator)!, using: &generator)).map { _ in
            UInt8.random(in: 97...100, using: &generator)
        }
        bytes.replaceSubrange(start..<end, with: inserted)
        return bytes
    }

    @Test(arguments: 0..<20)
    func replayingTheDeltasOfRandomEditsRebuildsEveryVersion(seed: UInt64) {
        var generator = Generator(state: seed)
        let base = (0..<Int.random(in: 0...20_000, using: &generator)).map { _ in UInt8.random(in: 97...100, using: &generator) }
        var replay = DeltaReplay(base: base)
        var current = base
        for step in 0..<60 {
            let next = Self.edited(current, using: &generator)
            let delta = ByteDelta(from: current, to: next)
            #expect(delta.prefix + delta.removed <= current.count && delta.inserted.count <= next.count)
            var direct = current
            direct.replaceSubrange(delta.prefix..<(delta.prefix + delta.removed), with: delta.inserted.array)
            #expect(direct == next, "seed \(seed), step \(step): the delta itself")
            let applied = replay.apply(delta)
            #expect(applied)
            #expect(replay.count == next.count)
            current = next
        }
        #expect(replay.bytes() == current, "seed \(seed): the replay of 60 deltas")
    }

    @Test func aOneRowEditIsAboutTheRow() {
        let rows = (0..<10_000).map { "S\($0),item \($0),\($0 % 7).5,fruit\n" }
        var edited = rows
        edited[5_000] = "S5000,item 5000,9.75,fruit\n"
        let old = Array(rows.joined().utf8)
        let new = Array(edited.joined().utf8)
        let delta = ByteDelta(from: old, to: new)
        #expect(delta.removed <= 4 && delta.inserted.count <= 4, "\(delta.removed) removed, \(delta.inserted.count) inserted")
        #expect(ByteDelta(from: old, to: old).inserted.isEmpty && ByteDelta(from: old, to: old).removed == 0)
    }

    @Test func aDeltaPastTheEndIsRefused() {
        var replay = DeltaReplay(base: Array("abc".utf8))
        let applied = replay.apply(ByteDelta(prefix: 2, removed: 2, inserted: []))
        #expect(!applied)
        #expect(replay.bytes() == Array("abc".utf8))
    }
}
