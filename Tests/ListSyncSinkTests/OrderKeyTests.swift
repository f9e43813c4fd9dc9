import Testing
import ListSyncTestSupport

@testable import ListSyncSink

/// Order keys sort as the records they place, and between any two there is room for more.
@Suite struct OrderKeyTests {
    /// Keys of a snapshot are ascending, of one length, without a trailing zero digit.
    @Test(arguments: [0, 1, 2, 61, 62, 1000, 100_000]) func spreadKeysAscend(count: Int) {
        let keys = OrderKey.spread(count)
        #expect(keys.count == count)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(keys.allSatisfy { !$0.isEmpty && !$0.hasSuffix("0") })
    }

    /// Inserting again and again at the top, at the bottom and between two neighbours keeps
    /// every key strictly between its neighbours, compared byte by byte.
    @Test func repeatedInsertionsStayOrdered() {
        var keys = OrderKey.spread(3)
        var generator = SplitMix(seed: 7)
        for _ in 0..<2000 {
            let position = Int(generator.next() % UInt64(keys.count + 1))
            let lower = position > 0 ? keys[position - 1] : nil
            let upper = position < keys.count ? keys[position] : nil
            let count = Int(generator.next() % 3) + 1
            let inserted = OrderKey.keys(count, between: lower, and: upper)
            keys.insert(contentsOf: inserted, at: position)
        }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(keys.allSatisfy { !$0.hasSuffix("0") })
    }

    /// A thousand insertions at the very top, and at the very bottom: keys grow by about one
    /// digit per thirty to sixty.
    @Test func insertionsAtTheEndsGrowSlowly() {
        var top = OrderKey.spread(1)[0]
        var bottom = top
        for _ in 0..<1000 {
            let key = OrderKey.keys(1, between: nil, and: top)[0]
            #expect(Array(key.utf8).lexicographicallyPrecedes(Array(top.utf8)) && !key.hasSuffix("0"))
            top = key
            let last = OrderKey.keys(1, between: bottom, and: nil)[0]
            #expect(Array(bottom.utf8).lexicographicallyPrecedes(Array(last.utf8)) && !last.hasSuffix("0"))
            bottom = last
        }
        #expect(top.utf8.count <= 40)
        #expect(bottom.utf8.count <= 40)
    }
}
