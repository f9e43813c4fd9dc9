#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
import UnixSockets

@testable import ListSyncDaemon

@Suite("SocketActivation")
struct SocketActivationTests {
    @Test(
        "no activation unless LISTEN_PID is ours and LISTEN_FDS is at least 1",
        arguments: [
            [:],
            ["LISTEN_FDS": "1"],
            ["LISTEN_PID": "77", "LISTEN_FDS": "1"],
            ["LISTEN_PID": "4242"],
            ["LISTEN_PID": "4242", "LISTEN_FDS": "0"],
        ]
    )
    func notActivated(variables: [String: String]) throws {
        #expect(try SocketActivation(environment: environment(variables)) == nil)
    }

    @Test("descriptors start at 3 and take their names from LISTEN_FDNAMES (or 'unknown')")
    func activated() throws {
        let one = try SocketActivation(environment: environment(["LISTEN_PID": "4242", "LISTEN_FDS": "1"]))
        #expect(one?.sockets == [.init(fileDescriptor: 3, name: "unknown")])
        let named = try #require(
            try SocketActivation(
                environment: environment(["LISTEN_PID": "4242", "LISTEN_FDS": "3", "LISTEN_FDNAMES": "api:metrics:"])
            )
        )
        #expect(named.sockets.map(\.fileDescriptor) == [3, 4, 5])
        #expect(named.sockets.map(\.name) == ["api", "metrics", ""])
        #expect(named.socket(named: "metrics")?.fileDescriptor == 4)
        #expect(named.socket(named: "nope") == nil)
    }

    @Test(
        "malformed variables are errors naming the variable",
        arguments: [
            (["LISTEN_PID": "abc", "LISTEN_FDS": "1"], "LISTEN_PID"),
            (["LISTEN_PID": "-3", "LISTEN_FDS": "1"], "LISTEN_PID"),
            (["LISTEN_PID": "4242", "LISTEN_FDS": "one"], "LISTEN_FDS"),
            (["LISTEN_PID": "4242", "LISTEN_FDS": "-1"], "LISTEN_FDS"),
            (["LISTEN_PID": "4242", "LISTEN_FDS": "99999"], "LISTEN_FDS"),
            (["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "api"], "LISTEN_FDNAMES"),
        ]
    )
    func malformed(variables: [String: String], variable: String) {
        #expect {
            try SocketActivation(environment: environment(variables))
        } throws: { error in
            guard case .invalidVariable(let name, _, _) = error as? SystemdError else { return false }
            return name == variable
        }
    }

    // MARK: - Adoption of real descriptors

    /// A Unix stream socket bound in `directory`, listening when `listening` is set.
    private func unixStreamSocket(in directory: ScratchDirectory, listening: Bool) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let address = try UnixSocketAddress(path: directory.path + "/api.sock")
        guard descriptor >= 0, address.withSocketAddress({ bind(descriptor, $0, $1) }) == 0 else {
            throw TestFailure(description: "socket/bind: errno \(errno)")
        }
        if listening { listen(descriptor, 8) }
        return descriptor
    }

    @Test("a listening Unix stream socket is adopted and marked close-on-exec")
    func adoptListeningSocket() throws {
        let directory = try ScratchDirectory()
        let descriptor = try self.unixStreamSocket(in: directory, listening: true)
        defer { close(descriptor) }
        #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC == 0)
        let adopted = try SocketActivation.ListeningSocket(fileDescriptor: descriptor, name: "api").adopt()
        #expect(adopted == descriptor)
        #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
        // It is the real listener: a client can connect through the file.
        let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        let address = try UnixSocketAddress(path: directory.path + "/api.sock")
        #expect(address.withSocketAddress { connect(client, $0, $1) } == 0)
    }

    @Test("descriptors the daemon cannot serve on are refused with the reason")
    func refuseUnusable() throws {
        let directory = try ScratchDirectory()
        let bound = try self.unixStreamSocket(in: directory, listening: false)
        let datagram = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        let inet = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var pipeEnds: [Int32] = [0, 0]
        pipe(&pipeEnds)
        let closed = Int32.max  // never an open descriptor: parallel tests may reuse any freed number
        defer { for descriptor in [bound, datagram, inet] + pipeEnds { close(descriptor) } }
        let cases: [(Int32, String)] = [
            (bound, "not listening"),
            (datagram, "not a stream socket"),
            (inet, "not an AF_UNIX socket"),
            (pipeEnds[0], "getsockopt: Socket operation on non-socket (errno 88)"),
            (closed, "fcntl: Bad file descriptor (errno 9)"),
        ]
        for (descriptor, reason) in cases {
            #expect(throws: SystemdError.unusableListeningSocket(fileDescriptor: descriptor, reason: reason)) {
                try SocketActivation.ListeningSocket(fileDescriptor: descriptor, name: "api").adopt()
            }
        }
    }
}
