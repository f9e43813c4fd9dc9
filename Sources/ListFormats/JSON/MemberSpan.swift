#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A member of an object being scanned: its name in the file, and its
/// canonical text (`,"name":value`) in the scanner's scratch buffer.
struct MemberSpan {
    /// The name's first byte (after the opening quote).
    var nameStart: Int
    /// The end of the name (before the closing quote).
    var nameEnd: Int
    var isEscaped: Bool
    /// The canonical text; empty for an ignored member.
    var textStart: Int
    var textEnd: Int

    /// Whether the two names are spelled with the same bytes (escapes
    /// included).
    @inline(__always)
    func hasSameSpelling(as other: MemberSpan, base: UnsafePointer<UInt8>) -> Bool {
        let length = nameEnd - nameStart
        guard length == other.nameEnd - other.nameStart else { return false }
        guard length <= 16 else { return memcmp(base + nameStart, base + other.nameStart, length) == 0 }
        // Most names are short: compare them here rather than call memcmp.
        for offset in 0..<length where base[nameStart + offset] != base[other.nameStart + offset] {
            return false
        }
        return true
    }
}
