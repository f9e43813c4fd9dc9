/// Checks that a file is well-formed UTF-8, once, before any reader looks at it.
///
/// Doing it as one pass keeps the readers' loops free of it; ASCII runs, the
/// common case, are checked eight bytes at a time.
enum UTF8Validation {
    /// The offset of the first byte of the first ill-formed sequence, or `nil`
    /// when all of `bytes` is well-formed UTF-8 (no overlong forms, no
    /// surrogates, nothing above U+10FFFF). O(*n*).
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var index = 0
        while index < count {
            if index + 32 <= count {
                let anyHighBit =
                    ByteWord(loadingFrom: base, at: index).nonASCIIMask
                    | ByteWord(loadingFrom: base, at: index + 8).nonASCIIMask
                    | ByteWord(loadingFrom: base, at: index + 16).nonASCIIMask
                    | ByteWord(loadingFrom: base, at: index + 24).nonASCIIMask
                if anyHighBit == 0 {
                    index += 32
                    continue
                }
            }
            if index + 8 <= count {
                let nonASCII = ByteWord(loadingFrom: base, at: index).nonASCIIMask
                guard nonASCII != 0 else {
                    index += 8
                    continue
                }
                index += ByteWord.firstByte(in: nonASCII)
            }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // Two-byte sequences (Latin, Greek, Cyrillic…) are the common case.
            if lead &- 0xC2 < 0x1E, index + 1 < count, base[index + 1] & 0xC0 == 0x80 {
                index += 2
                continue
            }
            guard let length = sequenceLength(at: index, in: bytes) else { return index }
            index += length
        }
        return nil
    }

    /// Whether `bytes` starts with the UTF-8 byte-order mark EF BB BF.
    static func hasByteOrderMark(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }

    /// The length of the well-formed multi-byte sequence at `index`, or `nil`.
    private static func sequenceLength(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let lead = bytes[index]
        let length: Int
        // The allowed range of the second byte (Unicode Table 3-7).
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondHigh = 0x9F
        case 0xF0: length = 4; secondLow = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondHigh = 0x8F
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        let second = bytes[index + 1]
        guard second >= secondLow, second <= secondHigh else { return nil }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
            return nil
        }
        return length
    }
}
