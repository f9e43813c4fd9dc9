/// How many terminal columns text takes, as wcwidth(3) counts them but without depending on the
/// C locale: East Asian wide and fullwidth characters (CJK ideographs, kana, Hangul syllables,
/// fullwidth forms, emoji shown as emoji) take 2, combining marks and other zero-width characters
/// (format controls such as the zero-width joiner, variation selectors, Hangul medial and final
/// jamo) 0, everything else 1.
///
/// A character — a grapheme cluster — takes the width of its widest scalar, so `e` with a
/// combining acute takes 1 and an emoji sequence joined by zero-width joiners takes 2.
enum DisplayWidth {
    /// The columns `text` takes. O(*n*) in its scalars.
    static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + Self.of($1) }
    }

    /// The columns `character` takes: 0, 1 or 2.
    static func of(_ character: Character) -> Int {
        character.unicodeScalars.reduce(0) { max($0, Self.of($1)) }
    }

    /// The columns `scalar` takes on its own: 0, 1 or 2.
    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value == 0 { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control:
            return 0
        default:
            break
        }
        // Hangul medial vowels and final consonants join the syllable before them.
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        return Self.wideRanges.contains { $0.contains(value) } ? 2 : 1
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks, besides emoji (Unicode's EastAsianWidth.txt,
    /// by block).
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul initial consonants
        0x2329...0x232A,  // angle brackets
        0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,  // kana, bopomofo, Hangul compatibility jamo, kanbun, CJK strokes, enclosed, compatibility
        0x3400...0x4DBF,  // CJK extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small forms
        0xFF00...0xFF60,  // fullwidth forms
        0xFFE0...0xFFE6,  // fullwidth signs
        0x16FE0...0x16FE4,  // ideographic symbols
        0x17000...0x18CFF,  // Tangut, Khitan
        0x1B000...0x1B2FF,  // kana supplement and extensions, Nüshu
        0x1F200...0x1F2FF,  // enclosed ideographic supplement
        0x20000...0x2FFFD,  // CJK extensions B–F, compatibility supplement
        0x30000...0x3FFFD,  // CJK extensions G–H
    ]

    /// `text`, or as much of it as fits in `width − 1` columns and `…` when it takes more than
    /// `width` columns; whole when `width` is `nil` (not a terminal) or too small to cut.
    static func cut(_ text: String, to width: Int?) -> String {
        guard let width, width > 1, Self.of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let columns = Self.of(character)
            guard used + columns <= width - 1 else { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }
}
