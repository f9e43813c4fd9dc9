import DurableFiles
import Testing

/// ``FileBytes/isContiguous(in:)``: whether one piece holds a range, as the pieces say.
struct FileBytesContiguityTests {
    @Test func aRangeIsContiguousExactlyWhenOnePieceHoldsIt() {
        let bytes = FileBytes([0, 1, 2]) + FileBytes([3, 4]) + FileBytes([5, 6, 7, 8])
        let pieceOf = [0, 0, 0, 1, 1, 2, 2, 2, 2]
        for lower in 0...bytes.count {
            for upper in lower...bytes.count {
                let expected = lower == upper || pieceOf[lower] == pieceOf[upper - 1]
                #expect(bytes.isContiguous(in: lower..<upper) == expected, "\(lower)..<\(upper)")
            }
        }
        #expect(FileBytes().isContiguous(in: 0..<0))
        #expect(FileBytes([1, 2, 3])[1..<3].isContiguous(in: 0..<2))
    }
}
