/// Where each of a sequence of non-empty pieces laid end to end starts, and which pieces hold a
/// position or a range: the index behind ``FileBytes``' pieces and ListFormats' `ListRecords`
/// runs (a file's bytes and a list's records, each in stretches shared between versions).
public struct PieceOffsets: Sendable {
    /// Where each piece starts (`starts[0] == 0` when there is a piece).
    public let starts: [Int]
    /// The pieces' lengths together.
    public let count: Int

    /// The offsets of pieces of `lengths`, none of them 0.
    public init(lengths: some Sequence<Int>) {
        var starts: [Int] = []
        var count = 0
        for length in lengths {
            precondition(length > 0, "an empty piece")
            starts.append(count)
            count += length
        }
        self.starts = starts
        self.count = count
    }

    /// The length of piece `index`.
    public func length(ofPiece index: Int) -> Int {
        (index + 1 < starts.count ? starts[index + 1] : count) - starts[index]
    }

    /// The index of the piece that holds position `offset` (`0 ..< count`). O(log pieces).
    public func pieceIndex(containing offset: Int) -> Int {
        precondition(offset >= 0 && offset < count, "offset \(offset) out of 0..<\(count)")
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The pieces `range` (within `0 ..< count`) covers part of, in order: each one's index and
    /// the part of it covered, in offsets from the piece's start. O(log pieces + pieces covered).
    public func pieces(overlapping range: Range<Int>) -> [(index: Int, part: Range<Int>)] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range \(range) out of 0..<\(count)")
        guard !range.isEmpty else { return [] }
        var parts: [(index: Int, part: Range<Int>)] = []
        var index = pieceIndex(containing: range.lowerBound)
        while index < starts.count, starts[index] < range.upperBound {
            let start = starts[index]
            parts.append((index, max(range.lowerBound - start, 0)..<min(range.upperBound - start, length(ofPiece: index))))
            index += 1
        }
        return parts
    }
}
