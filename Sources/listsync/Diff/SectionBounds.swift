import ListDiff

/// Where each section of a list starts among all its records, to go between
/// an ``ElementPath`` and a position in the flattened list.
struct SectionBounds {
    /// The flat position of each section's first record, then the total.
    private let starts: [Int]

    /// The bounds of sections with these record counts.
    init(counts: some Sequence<Int>) {
        var starts = [0]
        for count in counts { starts.append(starts[starts.count - 1] + count) }
        self.starts = starts
    }

    /// The flat position of `path`.
    func flatPosition(of path: ElementPath) -> Int {
        starts[path.section] + path.element
    }

    /// The path of flat position `position`. O(log *sections*).
    func path(ofFlatPosition position: Int) -> ElementPath {
        // The last section that starts at or before `position` (empty sections are skipped).
        var low = 0
        var high = starts.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if starts[middle] <= position { low = middle } else { high = middle }
        }
        return ElementPath(element: position - starts[low], section: low)
    }
}
