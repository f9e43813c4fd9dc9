/// The separator between CSV fields.
public enum CSVDelimiter: UInt8, CaseIterable, Hashable, Sendable {
    /// `,`
    case comma = 0x2C
    /// `;`, common where the decimal separator is a comma.
    case semicolon = 0x3B
    /// A tab: tab-separated values.
    case tab = 0x09
    /// `|`
    case pipe = 0x7C
}
