/// What state a watch's file is in, as `status` messages and watch summaries tell it.
public enum WatchState: String, Hashable, Sendable, CaseIterable {
    /// The file has not been read yet (only in watch summaries, right after start or reload).
    case loading
    /// The file's last version is live.
    case ok
    /// A writer has modified the file and still holds it open (a slow export): what it holds is
    /// not a version yet, so the last version stays live until the writer closes it. The status
    /// says since when (``StatusMessage/since``). An addition to protocol version 1.
    case writing
    /// The file changed into something that does not parse: the last good version stays live.
    case invalid
    /// The file is gone: the list is *not* emptied.
    case missing
    /// The watch left the configuration: the subscription ends.
    case removed
}
