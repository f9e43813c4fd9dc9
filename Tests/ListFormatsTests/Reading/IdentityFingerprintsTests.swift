@testable import ListFormats
import PropertyBased
import Testing

/// The fingerprints an ``IncrementalListReader`` patches from version to version hold exactly the
/// multiset a count of the values added and removed holds, whatever the order of the operations:
/// removals in long probe runs that wrap around the table's end, repeated values, values that
/// are not held.
@Suite struct IdentityFingerprintsTests {
    /// Insertions and removals (`true`: insert) of values from a small pool, so that they repeat,
    /// enough of them to fill a small table to three quarters.
    static let operations = Generator<(pool: [UInt32], steps: [(Bool, Int)]), Shrink.None<(pool: [UInt32], steps: [(Bool, Int)])>> { rng in
        let pool = (0..<Int.random(in: 1...1200, using: &rng)).map { _ -> UInt32 in
            Int.random(in: 0..<4, using: &rng) == 0 ? UInt32.random(in: 1...8, using: &rng) : UInt32.random(in: 1...UInt32.max, using: &rng)
        }
        let steps = (0..<Int.random(in: 0...3000, using: &rng)).map { _ in
            (Int.random(in: 0..<3, using: &rng) != 0, Int.random(in: 0..<pool.count, using: &rng))
        }
        return (pool, steps)
    }

    @Test func holdWhatACountOfTheValuesHolds() async {
        await propertyCheck(count: 200, input: Self.operations) { operations in
            var fingerprints = IdentityFingerprints(UnsafeBufferPointer(start: nil, count: 0))
            var expected: [UInt32: Int] = [:]
            for (isInsertion, index) in operations.steps {
                let value = operations.pool[index]
                if isInsertion {
                    guard fingerprints.hasRoom(for: fingerprints.count + 1) else { continue }
                    fingerprints.insert(value)
                    expected[value, default: 0] += 1
                } else {
                    let held = expected[value, default: 0] > 0
                    #expect(fingerprints.remove(value) == held)
                    if held { expected[value]! -= 1 }
                }
            }
            #expect(fingerprints.count == expected.values.reduce(0, +))
            for value in Set(operations.pool) {
                #expect(fingerprints.holdsOnce(value) == (expected[value] == 1), "\(value): \(expected[value] ?? 0)")
            }
        }
    }

    /// Made from records: each identity's fingerprint once per record.
    @Test func madeFromRecordsHoldEachRecordsFingerprint() {
        let records = (0..<3000).map { number in
            let identity = ContentHash(low: UInt64(number % 2000) &* 0x9E37_79B9_7F4A_7C15, high: 0)
            return ListRecord(start: number, end: number + 1, identity: RecordIdentity(hash: identity), content: identity)
        }
        let fingerprints = records.withUnsafeBufferPointer { IdentityFingerprints($0) }
        #expect(fingerprints.count == 3000)
        for (number, record) in records.enumerated() {
            #expect(fingerprints.holdsOnce(IdentityFingerprints.fingerprint(record)) == (number % 2000 >= 1000))
        }
    }
}
