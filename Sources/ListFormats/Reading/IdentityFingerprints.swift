/// A multiset of 32-bit fingerprints of a list's records' identities, kept by an
/// ``IncrementalListReader`` from one version to the next and patched by the records a version
/// reads again, so that checking those for a repeated identity costs O(changed records) rather
/// than a pass over every kept record (issue 19: the daemon's CPU per one-row version).
///
/// A fingerprint is 32 bits of a record's identity hash (its low half, as ``DuplicateCounter``
/// counts). Two records with one identity have one fingerprint, so a changed record whose
/// fingerprint is in the set once certainly repeats no identity; a fingerprint met more than once
/// may be a repeat or two identities that share 32 bits, and the reader then counts over every
/// record as before. The set never says "once" of a repeated identity: the only errors are
/// "maybe" for distinct identities, which cost a full count, never a wrong report.
///
/// Linear probing over a power-of-two table at most three quarters full, where each value's
/// home slot follows from the value itself, so that a removal shifts the values after it back
/// (no tombstones) and the table stays as it would be had the value never been added.
/// Memory: 4 bytes per slot, two slots per record or fewer — 8 MiB for a million records.
struct IdentityFingerprints: Sendable {
    /// 0 is an empty slot; a value is never 0 (``fingerprint(_:)``).
    private var slots: [UInt32]
    private var shift: UInt32
    /// The values held (with repeats).
    private(set) var count = 0

    /// The fingerprints of `records`' identities.
    init(_ records: UnsafeBufferPointer<ListRecord>) {
        var bits: UInt32 = 10
        while 1 << bits < records.count * 2 { bits += 1 }
        slots = [UInt32](repeating: 0, count: 1 << bits)
        shift = 32 - bits
        for record in records { insert(Self.fingerprint(record)) }
    }

    /// The fingerprint of `record`'s identity: never 0 (0 reads as 1, a "maybe" at worst).
    @inline(__always)
    static func fingerprint(_ record: ListRecord) -> UInt32 {
        max(UInt32(truncatingIfNeeded: record.differenceIdentifier.hash.low), 1)
    }

    /// Whether `count` values fit without making the table more than three quarters full.
    func hasRoom(for count: Int) -> Bool {
        count * 4 <= slots.count * 3
    }

    /// The slot where the probe for `value` starts.
    @inline(__always)
    private static func home(_ value: UInt32, _ shift: UInt32) -> Int {
        Int(truncatingIfNeeded: (value &* 0x9E37_79B9) >> shift)
    }

    /// Adds one occurrence of `value` (not 0). The table must have room (``hasRoom(for:)``).
    mutating func insert(_ value: UInt32) {
        let mask = slots.count - 1
        let shift = shift
        slots.withUnsafeMutableBufferPointer { slots in
            var index = Self.home(value, shift)
            while slots[index] != 0 { index = (index + 1) & mask }
            slots[index] = value
        }
        count += 1
    }

    /// Removes one occurrence of `value`; false when there is none.
    @discardableResult
    mutating func remove(_ value: UInt32) -> Bool {
        let mask = slots.count - 1
        let shift = shift
        let removed = slots.withUnsafeMutableBufferPointer { slots in
            var hole = Self.home(value, shift)
            while slots[hole] != value {
                guard slots[hole] != 0 else { return false }
                hole = (hole + 1) & mask
            }
            // Shift back each value after the hole whose home is not between the hole and it.
            var next = hole
            while true {
                next = (next + 1) & mask
                let moved = slots[next]
                guard moved != 0 else { break }
                let distanceFromHome = (next - Self.home(moved, shift)) & mask
                let distanceFromHole = (next - hole) & mask
                if distanceFromHome >= distanceFromHole {
                    slots[hole] = moved
                    hole = next
                }
            }
            slots[hole] = 0
            return true
        }
        if removed { count -= 1 }
        return removed
    }

    /// Whether `value` is held exactly once.
    func holdsOnce(_ value: UInt32) -> Bool {
        let mask = slots.count - 1
        let shift = shift
        return slots.withUnsafeBufferPointer { slots in
            var index = Self.home(value, shift)
            var found = 0
            while slots[index] != 0 {
                if slots[index] == value { found += 1 }
                index = (index + 1) & mask
            }
            return found == 1
        }
    }
}
