/// One watch as `hello` and `list` describe it.
public struct WatchSummary: Hashable, Sendable {
    /// The name clients subscribe to.
    public var name: String
    /// The file's format: `csv`, `tsv`, `json` or `ndjson`.
    public var format: String
    /// Whether the list is sectioned (`section_by`, or a JSON object of arrays); `false` until
    /// the first version is loaded.
    public var sectioned: Bool
    /// The file's state.
    public var state: WatchState
    /// The cursor of the current version; `nil` before the first valid version.
    public var cursor: Cursor?
    /// The number of records in the current version; `nil` before the first valid version.
    public var rows: Int?
    /// The key fields (CSV column names or JSON Pointers) that identify a record, as the
    /// configuration names them; empty when records are identified by their whole content.
    public var key: [String]
    /// The warnings of the watch's status (``StatusMessage/warnings``); empty when none.
    public var warnings: [WatchProblem]
    /// The watched file's path, as the configuration names it; `nil` from a server that does not
    /// tell it. Change events name it as their source.
    public var path: String?
    /// For ``WatchState/writing``: since when, as ``StatusMessage/since`` says; `nil` otherwise.
    public var since: Int64?
    /// Why the file is invalid or could not be read (the status's ``StatusMessage/error``);
    /// `nil` when it reads, and from a server that does not tell it.
    public var error: WatchProblem?

    /// Describes a watch.
    public init(
        name: String, format: String, sectioned: Bool, state: WatchState, cursor: Cursor?, rows: Int?, key: [String] = [],
        warnings: [WatchProblem] = [], path: String? = nil, since: Int64? = nil, error: WatchProblem? = nil
    ) {
        self.name = name
        self.format = format
        self.sectioned = sectioned
        self.state = state
        self.cursor = cursor
        self.rows = rows
        self.key = key
        self.warnings = warnings
        self.path = path
        self.since = since
        self.error = error
    }
}
