import DurableFiles
import FileWatching
import ListSyncProtocol

extension FileTracker {
    /// What the next read of the watched file may share with the last good version: its bytes
    /// and the reader's chunk boundaries in them (``StateMachine/sharingSource(options:)``).
    struct SharingSource: Sendable {
        /// The last good version's bytes.
        var bytes: FileBytes
        /// Where its chunks start (``IncrementalListReader/chunkBoundaries``).
        var boundaries: [Int]
        /// Which version they are.
        var version: Cursor
    }

    /// What a read shared with the version it was read after: the stretches at both ends that
    /// are that version's bytes (``SharedStretches``), and which version that was — used only if
    /// it is still the last good version when the read is taken in.
    struct SharedRead: Sendable {
        var stretches: SharedStretches
        var previous: Cursor
    }
}
