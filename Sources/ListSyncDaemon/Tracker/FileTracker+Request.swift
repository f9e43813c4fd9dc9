import FileWatching

extension FileTracker {
    /// Why a tracker's loop runs once more. Requests coalesce — only the newest one waits — so
    /// whether a writer holds the file is kept apart from them (``FileTracker/fileEvent(_:)``),
    /// and every request decides by it.
    enum Request: Sendable {
        /// Read whatever the file holds: the first read, a reload, a retry after the state could
        /// not be saved. Not while a writer holds the file, unless the watch publishes while
        /// writing.
        case reread
        /// The watcher announced the file settled, to be used if `check` confirms the read; or
        /// missing (`nil`).
        case announced(CompletenessCheck?)
        /// A writer holds the file: the status says so, unless the watch publishes while writing.
        case writing
        /// The file changed while a writer holds it, and the writer bound passed: a watch that
        /// publishes while writing reads it now.
        case changedWhileWriting
    }

    /// What the loop does for one request.
    enum Plan: Equatable {
        /// Read the file; use what is read if `check` (when given) confirms it, and only its
        /// complete lines when `completeLinesOnly` (a writer holds it).
        case read(check: CompletenessCheck?, completeLinesOnly: Bool)
        /// Publish the `writing` status, since `since` (a writer's first change), read nothing.
        case noteWriting(since: ContinuousClock.Instant)
        /// Nothing to do.
        case nothing

        /// What to do for `request`, when a writer holds the file since `writer` (if one does)
        /// and the watch does or does not publish while writing.
        init(_ request: Request, writer: ContinuousClock.Instant?, publishesWhileWriting: Bool) {
            switch (request, writer) {
            case (.announced(let check), _):
                self = .read(check: check, completeLinesOnly: false)
            case (.reread, nil):
                self = .read(check: nil, completeLinesOnly: false)
            case (.writing, nil), (.changedWhileWriting, nil):
                // The writer closed the file since: its announcement is on its way.
                self = .nothing
            case (.reread, let since?), (.writing, let since?), (.changedWhileWriting, let since?):
                if !publishesWhileWriting {
                    self = .noteWriting(since: since)
                } else if case .writing = request {
                    self = .nothing
                } else {
                    self = .read(check: nil, completeLinesOnly: true)
                }
            }
        }
    }
}
