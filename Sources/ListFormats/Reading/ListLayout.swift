import ListDiff

/// How a list's records are arranged.
public enum ListLayout: Sendable {
    /// One list of records.
    case linear([ListRecord])
    /// Records grouped in sections, in order of first appearance (or file
    /// order for a JSON object of arrays).
    case sectioned([ArraySection<SectionModel, ListRecord>])
}
