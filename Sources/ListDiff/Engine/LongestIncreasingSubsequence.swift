/// Marks the members of one longest strictly increasing subsequence of `values`.
///
/// The elements that keep their relative order between two versions of a list
/// are exactly such a subsequence of their old positions, read in new order;
/// everything else must move. Choosing the *longest* one makes the moves
/// minimal. Patience sorting: O(*k* log *k*), and O(*k*) when `values` is
/// nearly increasing (the common case: a value that extends the longest run
/// so far skips the binary search).
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
    // Already increasing (no element changed order, the common case): the whole of it is the
    // only longest subsequence — one pass, none of the working arrays (two of `count` integers).
    let isIncreasing = values.withUnsafeBufferPointer { values in
        var index = 1
        while index < count && values[index &- 1] < values[index] { index &+= 1 }
        return index >= count
    }
    if isIncreasing {
        members.append(contentsOf: repeatElement(true, count: count))
        return
    }
    members.append(contentsOf: repeatElement(false, count: count))
    scratch.tails.removeAll(keepingCapacity: true)
    scratch.tails.append(contentsOf: repeatElement(0, count: count))
    scratch.predecessors.removeAll(keepingCapacity: true)
    scratch.predecessors.append(contentsOf: repeatElement(-1, count: count))

    values.withUnsafeBufferPointer { values in
    scratch.tails.withUnsafeMutableBufferPointer { tails in
    scratch.predecessors.withUnsafeMutableBufferPointer { predecessors in
    members.withUnsafeMutableBufferPointer { members in
        // tails[k]: the index of the smallest last value of an increasing run
        // of length k + 1; `length` runs are known.
        var length = 0
        for index in 0..<count {
            let value = values[index]
            var low: Int
            if length > 0 && values[tails[length &- 1]] < value {
                low = length
            } else {
                low = 0
                var high = length
                while low < high {
                    let middle = (low &+ high) &>> 1
                    if values[tails[middle]] < value { low = middle &+ 1 } else { high = middle }
                }
            }
            if low > 0 { predecessors[index] = tails[low &- 1] }
            tails[low] = index
            if low == length { length &+= 1 }
        }
        var index = tails[length &- 1]
        while index >= 0 {
            members[index] = true
            index = predecessors[index]
        }
    }
    }
    }
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
