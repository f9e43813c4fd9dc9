import DurableFiles
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// A watch's state directory moved away from under the daemon while the log of the last published
/// changeset was still to be written.
struct WatchStateStoreLostDirectoryTests {
    /// The version saved next, once the directory was moved away, is saved by the third attempt
    /// (the tracker tries again every second): the first finds the log it was appending to gone,
    /// the second writes the directory again before it rewrites the log (which a save settles
    /// before anything else) and finds the journal gone, the third writes the version whole. It
    /// then restores. Before, every attempt failed on the log's temporary file, for good.
    @Test func aSaveAfterTheDirectoryWasMovedAwayCreatesItAgain() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 11)
        let watch = WatchStateStoreTests.watch
        var store = try WatchStateStoreTests.storeAtVersionZero(epoch: epoch, in: scratch)
        try store.save(try WatchStateStoreTests.version(1, seq: 1, epoch: epoch), changeset: FileBytes(Array("first".utf8)), watch: watch)
        // Version 1's changeset is not in the log yet (it is settled after publishing).
        try FileOperations.rename(scratch.path + "/list", to: scratch.path + "/list.away")

        let next = try WatchStateStoreTests.version(2, seq: 2, epoch: epoch)
        var failures: [StateFileError] = []
        for _ in 0..<6 {
            do throws(StateFileError) {
                try store.save(next, changeset: FileBytes(Array("second".utf8)), watch: watch)
                break
            } catch {
                failures.append(error)
            }
        }
        #expect(failures.count <= 2, "\(failures)")
        try store.settleLog()
        let restored = try WatchStateStoreTests.restored(from: scratch)
        #expect(restored.version.cursor == Cursor(epoch: epoch, seq: 2))
        #expect(restored.version.list.fileBytes == next.list.fileBytes)
    }
}
