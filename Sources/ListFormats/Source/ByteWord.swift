/// Eight bytes examined at once (SWAR: SIMD within a register).
///
/// The readers find their next interesting byte by testing a whole 64-bit
/// word against a handful of byte values; the tests are exact (no false
/// positives), so the lowest flagged byte is the answer.
struct ByteWord {
    /// The bytes, first byte in the lowest bits.
    let bits: UInt64

    @inline(__always)
    init(loadingFrom base: UnsafePointer<UInt8>, at offset: Int) {
        bits = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
    }

    private static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    private static let high1: UInt64 = 0x8080_8080_8080_8080

    /// Every byte set to `byte`.
    @inline(__always)
    static func splat(_ byte: UInt8) -> UInt64 {
        UInt64(byte) &* 0x0101_0101_0101_0101
    }

    /// A value whose byte *i* has its high bit clear exactly when byte *i*
    /// equals the byte splatted in `pattern`. Several of these are ANDed and
    /// then turned into a mask by ``mask(fromAnded:)``.
    @inline(__always)
    func equalityTerm(_ pattern: UInt64) -> UInt64 {
        let difference = bits ^ pattern
        return ((difference & Self.low7) &+ Self.low7) | difference
    }

    /// A value whose byte *i* has its high bit clear exactly when byte *i* is
    /// below 0x20 (a control character).
    @inline(__always)
    var controlTerm: UInt64 {
        ((bits & Self.low7) &+ 0x6060_6060_6060_6060) | bits
    }

    /// The high bit of every byte whose terms were clear.
    @inline(__always)
    static func mask(fromAnded terms: UInt64) -> UInt64 {
        ~terms & high1
    }

    /// The offset (0–7) of the lowest byte flagged in a non-zero `mask`.
    @inline(__always)
    static func firstByte(in mask: UInt64) -> Int {
        mask.trailingZeroBitCount &>> 3
    }
}
