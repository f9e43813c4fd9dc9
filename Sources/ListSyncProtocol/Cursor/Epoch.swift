/// The identity of one watch's history: cursors from another epoch are never resumed.
///
/// `listsyncd` draws a random epoch when a watch's history starts and keeps it in its state
/// directory across restarts and crashes; a new one starts only when that history is gone (state
/// deleted or damaged, the records identified differently), so a client whose cursor is of
/// another epoch gets a fresh snapshot instead of changesets that would not apply. On the wire it
/// is 16 lowercase hex digits, e.g. `5f0c2a4e19b7d3a8`.
public struct Epoch: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// The 64 bits of the epoch.
    public var rawValue: UInt64

    /// An epoch with the given bits.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Parses exactly 16 hex digits (either case); `nil` for anything else.
    public init?(_ description: String) {
        self.init(hexDigits: Substring(description))
    }

    /// Parses exactly 16 hex digits (either case); `nil` for anything else.
    public init?(hexDigits text: Substring) {
        guard text.utf8.count == 16, text.utf8.allSatisfy(\.isHexDigit), let value = UInt64(text, radix: 16) else {
            return nil
        }
        self.rawValue = value
    }

    /// A new random epoch, from the system's random number generator.
    public static func random() -> Epoch {
        var generator = SystemRandomNumberGenerator()
        return Epoch(rawValue: generator.next())
    }

    /// 16 lowercase hex digits.
    public var description: String {
        let digits = String(self.rawValue, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII hex digit, `0-9`, `a-f` or `A-F`.
    var isHexDigit: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }
}
