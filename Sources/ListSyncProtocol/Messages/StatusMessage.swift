/// A watch's state, pushed on every change of state and once after each subscribe.
public struct StatusMessage: Hashable, Sendable {
    /// The watch.
    public var watch: String
    /// Its state: ``WatchState/ok``, ``WatchState/invalid``, ``WatchState/missing`` or
    /// ``WatchState/removed`` (a watch that has not been read yet reports ``WatchState/loading``).
    public var state: WatchState
    /// Why the file is invalid or could not be read.
    public var error: WatchProblem?

    /// A status.
    public init(watch: String, state: WatchState, error: WatchProblem? = nil) {
        self.watch = watch
        self.state = state
        self.error = error
    }
}
