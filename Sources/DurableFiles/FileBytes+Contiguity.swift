extension FileBytes {
    /// Whether one piece holds every byte in `range` (an empty range: yes): then
    /// ``withContiguousBytes(in:_:)`` gives them in place, without a copy. O(log pieces).
    public func isContiguous(in range: Range<Int>) -> Bool {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range \(range) out of 0..<\(count)")
        guard !range.isEmpty else { return true }
        let index = pieceIndex(containing: range.lowerBound)
        return range.upperBound <= start(ofPiece: index) + pieces[index].range.count
    }
}
