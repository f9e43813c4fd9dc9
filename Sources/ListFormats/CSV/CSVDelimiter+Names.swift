extension CSVDelimiter {
    /// The delimiter's name, as `--delimiter` and the daemon's `delimiter` key spell it:
    /// `comma`, `semicolon`, `tab` or `pipe`.
    public var name: String {
        switch self {
        case .comma: "comma"
        case .semicolon: "semicolon"
        case .tab: "tab"
        case .pipe: "pipe"
        }
    }

    /// The delimiter itself, as one character: `,` `;` a tab, `|`.
    public var character: Character {
        Character(Unicode.Scalar(self.rawValue))
    }

    /// Every spelling a user may give, the name first: the name (in any case), the character
    /// itself — what every CSV tool accepts — and for a tab also `\t` typed as two characters.
    public var spellings: [String] {
        [self.name, String(self.character)] + (self == .tab ? ["\\t"] : [])
    }

    /// The delimiter `text` spells (see ``spellings``); `nil` when it spells none.
    public init?(spelling text: String) {
        let lowercased = text.lowercased()
        guard let delimiter = Self.allCases.first(where: { $0.spellings.contains(lowercased) || $0.spellings.contains(text) }) else {
            return nil
        }
        self = delimiter
    }

    /// The spellings, for messages: `"comma" or ",", "semicolon" or ";", "tab" or "\t", "pipe" or "|"`.
    public static var spellingList: String {
        Self.allCases.map { "\"\($0.name)\" or \"\($0 == .tab ? "\\t" : String($0.character))\"" }.joined(separator: ", ")
    }
}
