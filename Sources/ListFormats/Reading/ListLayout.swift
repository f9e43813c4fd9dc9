import ListDiff

/// How a list's records are arranged.
public enum ListLayout: Sendable {
    /// One list of records: one array, or — a version an ``IncrementalListReader`` read after
    /// another — runs it shares with that version (issue 19).
    case linear(ListRecords)
    /// Records grouped in sections, in order of first appearance (or file
    /// order for a JSON object of arrays).
    case sectioned([ArraySection<SectionModel, ListRecord>])
}
