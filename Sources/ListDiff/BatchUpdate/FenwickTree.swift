/// Counts of present places with prefix sums in O(log *n*).
@usableFromInline
struct FenwickTree {
    @usableFromInline var tree: [Int]

    @inlinable
    init(count: Int) {
        tree = [Int](repeating: 0, count: count + 1)
    }

    @inlinable
    mutating func add(_ delta: Int, at place: Int) {
        var index = place + 1
        while index < tree.count {
            tree[index] += delta
            index += index & -index
        }
    }

    /// The sum over places `0..<place`.
    @inlinable
    func count(before place: Int) -> Int {
        var index = place
        var sum = 0
        while index > 0 {
            sum += tree[index]
            index -= index & -index
        }
        return sum
    }
}
