import Glibc
import Testing
import UnixSockets
@testable import ListSyncDaemon

@Suite struct UnixSocketFileTests {
    /// A listening socket bound at `path`; closed (leaving a stale file) when released.
    final class Listener {
        let descriptor: Int32

        init(path: String, listening: Bool = true) throws {
            self.descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            let bound = try UnixSocketAddress(path: path).withSocketAddress { bind(self.descriptor, $0, $1) }
            guard bound == 0, !listening || listen(self.descriptor, 1) == 0 else { throw TestFailure(description: "bind/listen: errno \(errno)") }
        }

        deinit { close(self.descriptor) }
    }

    @Test func refusesTheSocketOfARunningDaemon() throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/s.sock"
        let live = try Listener(path: path)
        #expect(throws: ServerError.socketInUse(path: path)) { try UnixSocketFile.prepare(path: path) }
        #expect(access(path, F_OK) == 0)
        _ = live
    }

    @Test func removesAStaleSocket() throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/s.sock"
        _ = try Listener(path: path)
        #expect(access(path, F_OK) == 0)
        try UnixSocketFile.prepare(path: path)
        #expect(access(path, F_OK) != 0)
    }

    @Test func leavesAnythingElseAlone() throws {
        let directory = try ScratchDirectory()
        try directory.write("precious", to: "file")
        #expect(throws: ServerError.notASocket(path: directory.path + "/file")) { try UnixSocketFile.prepare(path: directory.path + "/file") }
    }

    @Test func createsTheDirectoryAndRemovesOnlyItsOwnSocket() throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/run/s.sock"
        try UnixSocketFile.prepare(path: path)
        let first = try Listener(path: path)
        let file = try UnixSocketFile(boundAt: path, mode: 0o640)
        var status = stat()
        stat(path, &status)
        #expect(status.st_mode & 0o777 == 0o640)
        // A successor replaced the socket: shutdown must not remove it.
        unlink(path)
        let successor = try Listener(path: path)
        file.remove()
        #expect(access(path, F_OK) == 0)
        _ = (first, successor)
    }
}
