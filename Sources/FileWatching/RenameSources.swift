/// The entries of watched directories that are not watched themselves — an editor's or a
/// script's temporary files — followed far enough to tell whether a file renamed over a watched
/// one is complete: it was closed after writing (`IN_CLOSE_WRITE` seen) and nobody holds it open.
/// Such a rename needs no settle delay (issue 19 item 5): nothing can still be written to it
/// through the watched name, and whoever wrote it is done.
///
/// Only an entry followed since its creation (or since it was moved in) can be complete: of one
/// seen first later, the opens before are unknown. Bounded in entries: past ``maximumEntries``
/// followed at once it forgets them all; an entry forgotten so was not followed since its
/// creation any more, so its rename waits the settle delay as before.
struct RenameSources {
    static let maximumEntries = 1024

    /// What is known of one entry since its creation (or since the watch saw it first).
    private struct Entry {
        /// Opens not yet closed, as far as the events tell (opens before the watch are unknown).
        var openCount = 0
        /// Whether it was closed after writing and not modified since.
        var closedAfterWriting = false
        /// Whether the events tell of it since its creation or its move in: only then is
        /// ``openCount`` every open.
        var followedSinceCreation = false

        var isComplete: Bool { followedSinceCreation && closedAfterWriting && openCount == 0 }
    }

    private struct Key: Hashable {
        var directory: String
        var name: String
    }

    private var entries: [Key: Entry] = [:]
    /// The last entry moved out of a watched directory: where, its cookie, whether it was complete.
    private var lastMove: (directory: String, cookie: UInt32, isComplete: Bool)?

    /// How many entries are followed (at most ``maximumEntries``).
    var count: Int { self.entries.count }

    /// Follows an event about entry `name` of `directory`, which is not a watched file.
    mutating func note(_ mask: InotifyEvent.Mask, name: String, in directory: String, cookie: UInt32) {
        let key = Key(directory: directory, name: name)
        if entries[key] == nil, entries.count >= Self.maximumEntries { entries = [:] }
        if !mask.isDisjoint(with: [.create, .movedTo, .delete]) {
            // Another file at the name, or none: what the events say of it starts here.
            entries[key] = mask.contains(.delete) ? nil : Entry(followedSinceCreation: true)
        }
        if mask.contains(.movedFrom) {
            lastMove = (directory, cookie, entries[key]?.isComplete ?? false)
            entries[key] = nil
            return
        }
        guard !mask.isDisjoint(with: [.open, .modify, .closeWrite, .closeNoWrite]) else { return }
        var entry = entries[key] ?? Entry()
        if mask.contains(.open) { entry.openCount += 1 }
        if mask.contains(.modify) { entry.closedAfterWriting = false }
        if !mask.isDisjoint(with: [.closeWrite, .closeNoWrite]) { entry.openCount = max(0, entry.openCount - 1) }
        if mask.contains(.closeWrite) { entry.closedAfterWriting = true }
        entries[key] = entry
    }

    /// Whether the `IN_MOVED_TO` with `cookie` into `directory` brings a complete file: the
    /// entry moved out just before, with the same cookie, was closed after writing and nobody
    /// held it open.
    mutating func isCompleteRename(into directory: String, cookie: UInt32) -> Bool {
        defer { lastMove = nil }
        guard cookie != 0, let lastMove, lastMove.cookie == cookie, lastMove.directory == directory else { return false }
        return lastMove.isComplete
    }
}
