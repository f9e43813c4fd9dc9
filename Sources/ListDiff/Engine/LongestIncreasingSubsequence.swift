/// Marks the members of one longest strictly increasing subsequence of `values`.
///
/// The elements that keep their relative order between two versions of a list
/// are exactly such a subsequence of their old positions, read in new order;
/// everything else must move. Choosing the *longest* one makes the moves
/// minimal. Patience sorting: O(*k* log *k*), and O(*k*) when `values` is
/// already increasing (the common case of a list without moves).
///
/// - Parameters:
///   - values: Distinct integers.
///   - members: Resized to `values.count`; `members[i]` is set when
///     `values[i]` belongs to the chosen subsequence.
///   - scratch: Working storage, reused across calls to avoid allocations.
@inlinable
func markLongestIncreasingSubsequence(
    _ values: [Int],
    into members: inout [Bool],
    scratch: inout LongestIncreasingSubsequenceScratch
) {
    let count = values.count
    members.removeAll(keepingCapacity: true)
    guard count > 0 else { return }

    var isIncreasing = true
    for index in 1..<count where values[index - 1] >= values[index] {
        isIncreasing = false
        break
    }
    if isIncreasing {
        members.append(contentsOf: repeatElement(true, count: count))
        return
    }

    members.append(contentsOf: repeatElement(false, count: count))
    // tails[k]: index of the smallest last value of an increasing run of length k + 1.
    scratch.tails.removeAll(keepingCapacity: true)
    scratch.predecessors.removeAll(keepingCapacity: true)
    scratch.predecessors.append(contentsOf: repeatElement(-1, count: count))
    values.withUnsafeBufferPointer { values in
        for index in 0..<count {
            let value = values[index]
            var low = 0
            var high = scratch.tails.count
            while low < high {
                let middle = (low &+ high) &>> 1
                if values[scratch.tails[middle]] < value { low = middle &+ 1 } else { high = middle }
            }
            if low > 0 { scratch.predecessors[index] = scratch.tails[low &- 1] }
            if low == scratch.tails.count { scratch.tails.append(index) } else { scratch.tails[low] = index }
        }
    }
    var index = scratch.tails.last ?? -1
    while index >= 0 {
        members[index] = true
        index = scratch.predecessors[index]
    }
}

/// Reusable buffers for ``markLongestIncreasingSubsequence(_:into:scratch:)``.
@usableFromInline
struct LongestIncreasingSubsequenceScratch {
    @usableFromInline var tails: [Int] = []
    @usableFromInline var predecessors: [Int] = []

    @inlinable
    init() {}
}
