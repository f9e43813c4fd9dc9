import DurableFiles
import Testing

/// ``FileBytes``: bytes in pieces behave as the array of the same bytes, and share storage.
struct FileBytesTests {
    /// Random splits of random bytes: count, array, bytes, slices, equality and hashes are the
    /// array's, whatever the pieces.
    @Test func piecesBehaveAsTheArrayOfTheirBytes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let count = Int.random(in: 0...200, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...3, using: &generator) }
            let split = Self.randomSplit(bytes, using: &generator)
            #expect(split.count == bytes.count)
            #expect(split.array == bytes)
            #expect(split == FileBytes(bytes))
            #expect(split.hashValue == FileBytes(bytes).hashValue)
            #expect(split.hashValue == bytes.hashValue)
            for offset in 0..<count {
                #expect(split[offset] == bytes[offset])
            }
            let lower = Int.random(in: 0...count, using: &generator)
            let upper = Int.random(in: lower...count, using: &generator)
            #expect(split[lower..<upper].array == Array(bytes[lower..<upper]))
            split.withContiguousBytes(in: lower..<upper) { #expect(Array($0) == Array(bytes[lower..<upper])) }
            // Another split of other bytes of the same count: equal exactly when the bytes are.
            var other = bytes
            if count > 0, Bool.random(using: &generator) {
                other[Int.random(in: 0..<count, using: &generator)] &+= 1
            }
            #expect((Self.randomSplit(other, using: &generator) == split) == (other == bytes))
        }
    }

    /// A slice and a concatenation hold the same storage, not a copy of it.
    @Test func slicesShareTheirStorage() {
        let storage = [UInt8](repeating: 7, count: 10_000)
        let whole = FileBytes(storage)
        let joined = whole[0..<100] + FileBytes([1, 2, 3]) + whole[200..<10_000]
        #expect(joined.count == 9_903)
        #expect(joined.pieces.count == 3)
        #expect(joined.pieces[0].storage.withUnsafeBufferPointer { $0.baseAddress } == storage.withUnsafeBufferPointer { $0.baseAddress })
        // The large array is counted once, the small one beside it.
        #expect(joined.storageByteCount >= 10_003 && joined.storageByteCount < 10_100)
        #expect(whole.array.withUnsafeBufferPointer { $0.baseAddress } == storage.withUnsafeBufferPointer { $0.baseAddress })
        #expect(joined.isContiguous == false && whole.isContiguous)
    }

    /// `bytes` in pieces of random lengths, each in a storage of its own.
    static func randomSplit(_ bytes: [UInt8], using generator: inout some RandomNumberGenerator) -> FileBytes {
        var pieces: [FileBytes.Piece] = []
        var start = 0
        while start < bytes.count {
            let end = Int.random(in: start...min(bytes.count, start + 40), using: &generator)
            // Each piece in a storage of its own, with bytes around it that are not part of it.
            let storage = [UInt8](repeating: 9, count: 3) + bytes[start..<end] + [9]
            pieces.append(FileBytes.Piece(storage: storage, range: 3..<(3 + end - start)))
            start = end
        }
        return FileBytes(pieces: pieces)
    }
}
