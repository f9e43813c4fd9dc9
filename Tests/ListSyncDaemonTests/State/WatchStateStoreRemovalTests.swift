import DurableFiles
import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

/// Deleting a watch's state (the watch left the configuration).
struct WatchStateStoreRemovalTests {
    /// The paths this process has open, as `/proc/self/fd` names them.
    static func openPaths() throws -> [String] {
        let directory = try #require(opendir("/proc/self/fd"))
        defer { closedir(directory) }
        var paths: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            var target = [CChar](repeating: 0, count: 4096)
            let count = readlink("/proc/self/fd/" + name, &target, target.count - 1)
            if count > 0 {
                paths.append(String(decoding: target.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return paths
    }

    /// Removing the state closes the log the archive had open, so its space is freed, and the
    /// archive serves nothing any more.
    @Test func removingTheStateLetsGoOfTheLog() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 9)
        let watch = WatchStateStoreTests.watch
        var store = try WatchStateStoreTests.storeAtVersionZero(epoch: epoch, in: scratch)
        try store.settleLog()
        try store.save(try WatchStateStoreTests.version(1, seq: 1, epoch: epoch), changeset: FileBytes(Array("changed".utf8)), watch: watch)
        try store.settleLog()
        #expect(store.archive.line(publishing: 1, of: epoch) == Array("changed".utf8))
        #expect(try Self.openPaths().contains { $0.hasPrefix(store.logPath) }, "the archive reads the log")

        try store.remove()
        #expect(try !Self.openPaths().contains { $0.hasPrefix(store.logPath) }, "the deleted log is still open")
        #expect(store.archive.line(publishing: 1, of: epoch) == nil)
    }
}
