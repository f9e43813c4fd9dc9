@testable import ListFormats
import PropertyBased
import Testing

/// The duplicate count must be the one a plain scan with a set of the
/// identities seen finds, whatever the hashes look like: many in one run,
/// low halves that collide with different high halves, the hash 0, a list
/// read in two halves whose counters are joined.
@Suite struct DuplicateCounterTests {
    /// Identities drawn from a small pool (so some repeat), with low halves
    /// that now and then share a run or collide outright.
    static let identities = Generator<[ContentHash], Shrink.None<[ContentHash]>> { rng in
        let poolSize = Int.random(in: 1...40_000, using: &rng)
        let crowdedRun = UInt64.random(in: 0...255, using: &rng) << 56
        let pool = (0..<poolSize).map { _ -> ContentHash in
            var low = UInt64.random(in: 0...UInt64.max, using: &rng)
            switch Int.random(in: 0..<20, using: &rng) {
            case 0: low = 0
            case 1: low = low & 0x00FF_FFFF_FFFF_FFFF | crowdedRun
            case 2: low = low & 0xF  // the same low half as other identities
            default: break
            }
            return ContentHash(low: low, high: UInt64.random(in: 0...3, using: &rng))
        }
        return (0..<Int.random(in: 0...60_000, using: &rng)).map { _ in pool.randomElement(using: &rng)! }
    }

    private func records(_ identities: [ContentHash]) -> [ListRecord] {
        identities.enumerated().map { number, identity in
            ListRecord(start: number, end: number + 1, identity: RecordIdentity(hash: identity), content: identity)
        }
    }

    /// What a set of the identities seen so far finds.
    private func expected(_ identities: [ContentHash]) -> (count: Int, first: Int?) {
        var seen: Set<ContentHash> = []
        var count = 0
        var first: Int?
        for (number, identity) in identities.enumerated() where !seen.insert(identity).inserted {
            count += 1
            first = first ?? number
        }
        return (count, first)
    }

    @Test func countsWhatASetOfTheIdentitiesFinds() async {
        await propertyCheck(count: 60, input: Self.identities) { identities in
            var counter = DuplicateCounter(estimatedCount: 16)
            for identity in identities { counter.add(identity.low) }
            let found = counter.duplicates(in: [records(identities)])
            let expected = expected(identities)
            #expect(found.count == expected.count && found.first == expected.first)
        }
    }

    @Test func joinedHalvesCountAsOne() async {
        await propertyCheck(count: 60, input: Self.identities) { identities in
            let middle = identities.isEmpty ? 0 : Int.random(in: 0...identities.count)
            var first = DuplicateCounter(estimatedCount: 16)
            var second = DuplicateCounter(estimatedCount: 1 << 20)
            for identity in identities[..<middle] { first.add(identity.low) }
            for identity in identities[middle...] { second.add(identity.low) }
            let repeated = first.repeatedHashes(joining: second)
            let found = first.duplicates(in: [records(identities)], repeatedHashes: repeated)
            let expected = expected(identities)
            #expect(found.count == expected.count && found.first == expected.first)
        }
    }
}
