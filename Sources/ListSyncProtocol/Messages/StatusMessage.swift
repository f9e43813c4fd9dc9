/// A watch's state, pushed on every change of state and once after each subscribe.
public struct StatusMessage: Hashable, Sendable {
    /// The watch.
    public var watch: String
    /// Its state: ``WatchState/ok``, ``WatchState/writing``, ``WatchState/invalid``,
    /// ``WatchState/missing`` or ``WatchState/removed`` (a watch that has not been read yet
    /// reports ``WatchState/loading``).
    public var state: WatchState
    /// Why the file is invalid or could not be read.
    public var error: WatchProblem?
    /// What the reader noticed in the live version that a user should know though the file
    /// reads, such as keys that repeat (the first repeat, with its position); empty when none.
    public var warnings: [WatchProblem]
    /// For ``WatchState/writing``: when the writer first modified the file, in milliseconds since
    /// the Unix epoch (member `since`, an addition to protocol version 1); `nil` otherwise.
    public var since: Int64?

    /// A status.
    public init(watch: String, state: WatchState, error: WatchProblem? = nil, warnings: [WatchProblem] = [], since: Int64? = nil) {
        self.watch = watch
        self.state = state
        self.error = error
        self.warnings = warnings
        self.since = since
    }
}
