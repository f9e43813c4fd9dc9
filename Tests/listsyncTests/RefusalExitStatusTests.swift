import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A daemon that answers `hello` with an `error` was reached: its refusals (but
/// `not_permitted`, 5, and `bad_cursor`, 1) are protocol errors, exit status 3 — not 2,
/// "daemon unreachable". A one-connection server on a Unix socket plays the daemon.
@Suite struct RefusalExitStatusTests {
    @Test("a refusal of hello exits 3", arguments: ["unsupported_version", "line_too_long", "bad_request"])
    func refusalExits3(code: String) async throws {
        let files = try ScratchFiles()
        let socketPath = files.directory.appendingPathComponent("d.sock").path
        let server = try RefusingServer(path: socketPath, reply: #"{"type":"error","id":null,"code":"\#(code)","message":"refused by the test"}"# + "\n")
        defer { server.close() }
        let result = try await ListSyncProcess.execute(["list", "--socket", socketPath], in: files.directory)
        #expect(result.status == 3, "\(result.standardError)")
        #expect(result.standardError.contains(code) || result.standardError.contains("refused by the test"), "\(result.standardError)")
    }
}

/// A Unix socket server that reads one line from each connection, writes `reply` and closes it.
private final class RefusingServer: @unchecked Sendable {
    private let descriptor: Int32
    private let thread: Thread

    struct Failure: Error { let call: String }

    init(path: String, reply: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(call: "socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(call: "path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(descriptor, 8) == 0 else { throw Failure(call: "bind/listen") }
        self.descriptor = descriptor
        self.thread = Thread {
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }
                var byte: UInt8 = 0
                while read(connection, &byte, 1) == 1, byte != UInt8(ascii: "\n") {}
                let line = Array(reply.utf8)
                _ = line.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                Glibc.close(connection)
            }
        }
        self.thread.start()
    }

    /// Stops accepting: the thread's `accept` fails once the socket is shut down.
    func close() {
        shutdown(self.descriptor, Int32(SHUT_RDWR))
        Glibc.close(self.descriptor)
    }
}
