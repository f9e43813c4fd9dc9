/// A stable 128-bit hash of a record's content (XXH3-128 of its canonical form).
///
/// Two records have equal content hashes when their content is semantically
/// equal: for JSON, whitespace, member order and escape spelling don't count;
/// for CSV, quoting style doesn't. The value is the same in every process and
/// on every machine, so it can be persisted.
public struct ContentHash: Hashable, Sendable, BitwiseCopyable {
    /// The low 64 bits.
    public var low: UInt64

    /// The high 64 bits.
    public var high: UInt64

    /// Creates a hash from its two halves.
    @inlinable
    public init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// Adds `other` lane by lane, wrapping. Summing member hashes gives an
    /// object hash that does not depend on member order.
    @inline(__always)
    mutating func accumulate(_ other: ContentHash) {
        low &+= other.low
        high &+= other.high
    }
}

extension ContentHash: LosslessStringConvertible {
    /// 32 lowercase hex digits, high half first.
    public var description: String {
        // Written in place: hashes are printed once per record (a sink's rows, a snapshot).
        String(unsafeUninitializedCapacity: 32) { digits in
            for position in 0..<32 {
                let half = position < 16 ? self.high : self.low
                let nibble = UInt8(truncatingIfNeeded: half >> (60 - 4 * (position & 15))) & 0xF
                digits[position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            }
            return 32
        }
    }

    /// Parses 32 hex digits (either case), high half first. In place, without allocating: every
    /// record of a snapshot or changeset carries one.
    public init?(_ description: String) {
        var text = description
        let halves = text.withUTF8 { digits -> (UInt64, UInt64)? in
            guard digits.count == 32 else { return nil }
            var high: UInt64 = 0
            var low: UInt64 = 0
            for index in 0..<32 {
                guard let nibble = JSONString.hexDigit(digits[index]) else { return nil }
                if index < 16 {
                    high = high << 4 | UInt64(nibble)
                } else {
                    low = low << 4 | UInt64(nibble)
                }
            }
            return (high, low)
        }
        guard let (high, low) = halves else { return nil }
        self.init(low: low, high: high)
    }
}
