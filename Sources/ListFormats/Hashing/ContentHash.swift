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

    /// Parses 32 hex digits (either case), high half first.
    public init?(_ description: String) {
        let digits = Array(description.utf8)
        guard digits.count == 32,
            let high = UInt64(String(decoding: digits[..<16], as: UTF8.self), radix: 16),
            let low = UInt64(String(decoding: digits[16...], as: UTF8.self), radix: 16),
            digits.allSatisfy({ JSONString.hexDigit($0) != nil })
        else { return nil }
        self.init(low: low, high: high)
    }
}
