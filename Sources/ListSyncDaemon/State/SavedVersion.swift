import DurableFiles
import ListSyncProtocol

/// A saved version of a watch without its bytes: what a checkpoint slot's header or a
/// ``DeltaJournal`` record says of it — its cursor and digest, the changeset line that published
/// it (`nil` for the first version of an epoch), and the settings its bytes were read with.
struct SavedVersion: Sendable {
    var cursor: Cursor
    var digest: ListDigest
    var changeset: FileBytes?
    var watch: WatchConfiguration
}
