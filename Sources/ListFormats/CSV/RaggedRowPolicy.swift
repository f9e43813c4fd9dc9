/// What a CSV reader does with a row whose field count differs from the
/// header's.
public enum RaggedRowPolicy: Hashable, Sendable {
    /// Any row with a different field count is an error.
    case error

    /// Short rows get empty fields at the end; long rows are still an error
    /// (their extra fields would be lost).
    case pad

    /// Long rows lose their extra fields; short rows are still an error.
    case truncate
}
