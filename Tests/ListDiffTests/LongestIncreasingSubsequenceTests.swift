import PropertyBased
import Testing
@testable import ListDiff

/// `markLongestIncreasingSubsequence` marks an increasing subsequence of the greatest length
/// (checked against the oracle's quadratic count, ``ChangeCounts``), and all of a sequence that
/// is increasing already — which it finds without its working arrays — also after a call that
/// used them.
@Suite struct LongestIncreasingSubsequenceTests {
    @Test func marksALongestIncreasingSubsequence() async {
        // Distinct values in any order (repeats dropped), sometimes sorted first, sometimes
        // sorted with one moved.
        let input = zip(Gen.int(in: 0...60).array(of: 0...40), Gen.int(in: 0...2), Gen.int(in: 0...1_000), Gen.int(in: 0...1_000))
        await propertyCheck(count: 3_000, input: input) { generated, shape, from, to in
            var seen = Set<Int>()
            var values = generated.filter { seen.insert($0).inserted }
            switch shape {
            case 0: values.sort()
            case 1 where !values.isEmpty:
                values.sort()
                let moved = values.remove(at: from % values.count)
                values.insert(moved, at: to % (values.count + 1))
            default: break
            }
            var members: [Bool] = [true, false, true]
            var scratch = LongestIncreasingSubsequenceScratch()
            markLongestIncreasingSubsequence(values, into: &members, scratch: &scratch)
            let chosen = zip(values, members).filter(\.1).map(\.0)
            #expect(members.count == values.count)
            #expect(zip(chosen, chosen.dropFirst()).allSatisfy { $0 < $1 }, "\(values): \(chosen) is not increasing")
            #expect(chosen.count == ChangeCounts.longestIncreasingSubsequenceLength(values), "\(values): \(chosen) is not longest")
            // The same scratch and members again, on the values sorted: all of them.
            markLongestIncreasingSubsequence(values.sorted(), into: &members, scratch: &scratch)
            #expect(members == [Bool](repeating: true, count: values.count))
        }
    }
}
