#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts the members of an object in canonical order — by name, comparing
/// the unescaped UTF-8 bytes — and finds duplicate names on the way.
///
/// Records of a list nearly always share one shape, so the order found for a
/// record is remembered with its names; the next record whose names are
/// spelled the same reuses it after a byte comparison per name. Such a record
/// also cannot have duplicate names, since the remembered one had none.
struct JSONMemberOrder: ~Copyable {
    /// The order found by the last call: `order[i]` is the offset (from the
    /// first member) of the *i*-th member in canonical order.
    private(set) var order = ScratchArray<Int>()
    /// Whether the last order found is file order.
    private(set) var isFileOrder = true
    private var left = ByteScratch(capacity: 64)
    private var right = ByteScratch(capacity: 64)
    /// The last record shape: its names (file order) and canonical order.
    private var shapeNames: [MemberSpan] = []
    private var shapeOrder: [Int] = []
    private var shapeIsFileOrder = true

    /// Two members with the same name: offsets from the first member, `first`
    /// before `second` in the file.
    struct Duplicate: Error {
        var first: Int
        var second: Int
    }

    /// Finds the canonical order of `members`; `isRecord` lets it use and
    /// update the remembered record shape. Returns whether the shape is new
    /// (so the caller can note its names).
    mutating func sort(
        _ members: UnsafeBufferPointer<MemberSpan>, base: UnsafePointer<UInt8>, isRecord: Bool
    ) throws(Duplicate) -> Bool {
        if isRecord, members.count == shapeNames.count,
            zip(members, shapeNames).allSatisfy({ $0.hasSameSpelling(as: $1, base: base) })
        {
            order.truncate(to: 0)
            for offset in shapeOrder { order.append(offset) }
            isFileOrder = shapeIsFileOrder
            return false
        }
        order.truncate(to: 0)
        for offset in 0..<members.count { order.append(offset) }
        // Insertion sort: objects are small, and often nearly sorted.
        for position in 1..<max(members.count, 1) {
            let moving = order[position]
            var slot = position
            while slot > 0 {
                let comparison = compare(members[order[slot - 1]], members[moving], base: base)
                if comparison == 0 {
                    throw Duplicate(first: min(order[slot - 1], moving), second: max(order[slot - 1], moving))
                }
                guard comparison > 0 else { break }
                order[slot] = order[slot - 1]
                slot -= 1
            }
            order[slot] = moving
        }
        isFileOrder = (0..<members.count).allSatisfy { order[$0] == $0 }
        if isRecord {
            shapeNames = Array(members)
            shapeOrder = (0..<members.count).map { order[$0] }
            shapeIsFileOrder = isFileOrder
        }
        return true
    }

    /// Compares two names by their unescaped bytes.
    private mutating func compare(_ lhs: MemberSpan, _ rhs: MemberSpan, base: UnsafePointer<UInt8>) -> Int {
        guard lhs.isEscaped || rhs.isEscaped else {
            return Self.compare(base + lhs.nameStart, lhs.nameEnd - lhs.nameStart, base + rhs.nameStart, rhs.nameEnd - rhs.nameStart)
        }
        left.truncate(to: 0)
        right.truncate(to: 0)
        JSONString.appendDecoded(UnsafeRawBufferPointer(start: base + lhs.nameStart, count: lhs.nameEnd - lhs.nameStart), to: &left)
        JSONString.appendDecoded(UnsafeRawBufferPointer(start: base + rhs.nameStart, count: rhs.nameEnd - rhs.nameStart), to: &right)
        let leftBytes = left.bytes()
        let rightBytes = right.bytes()
        guard let leftBase = leftBytes.baseAddress, let rightBase = rightBytes.baseAddress else { return 0 }
        return Self.compare(
            leftBase.assumingMemoryBound(to: UInt8.self), leftBytes.count,
            rightBase.assumingMemoryBound(to: UInt8.self), rightBytes.count)
    }

    private static func compare(_ lhs: UnsafePointer<UInt8>, _ lhsCount: Int, _ rhs: UnsafePointer<UInt8>, _ rhsCount: Int) -> Int {
        let common = memcmp(lhs, rhs, min(lhsCount, rhsCount))
        return common != 0 ? Int(common) : lhsCount - rhsCount
    }
}
