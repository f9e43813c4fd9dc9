/// Whether text gets ANSI colors: on a terminal, yes; in a file or a pipe,
/// the same text without escape sequences.
enum TerminalStyle {
    /// Text as it is.
    case plain
    /// Text wrapped in ANSI color sequences.
    case colored

    /// The colors of a diff.
    enum Color: String {
        case red = "31"
        case green = "32"
        case yellow = "33"
        case magenta = "35"
        case cyan = "36"
    }

    /// `text` in `color`, or as it is when the style is plain.
    func paint(_ text: String, _ color: Color) -> String {
        switch self {
        case .plain: text
        case .colored: "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m"
        }
    }
}
