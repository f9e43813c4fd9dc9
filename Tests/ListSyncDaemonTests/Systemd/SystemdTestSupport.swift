#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ListSyncTestSupport
import UnixSockets

@testable import ListSyncDaemon

struct TestFailure: Error, CustomStringConvertible {
    var description: String
}

/// A bound `AF_UNIX` datagram socket standing in for systemd's notification socket.
final class DatagramListener {
    let descriptor: Int32

    /// Binds `address` (a path, or `@name` for the abstract namespace).
    init(notifySocket: String) throws {
        self.descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard self.descriptor >= 0 else { throw TestFailure(description: "socket: errno \(errno)") }
        let address = try UnixSocketAddress(notifySocket: notifySocket)
        let bound = address.withSocketAddress { bind(self.descriptor, $0, $1) }
        guard bound == 0 else { throw TestFailure(description: "bind \(notifySocket): errno \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(self.descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next datagram, waiting at most `timeout` without holding a thread.
    func nextDatagram(timeout: Duration = .seconds(5)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let datagram = try self.receiveQueued() { return datagram }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw TestFailure(description: "no datagram within \(timeout)") }
            _ = await Readiness.readable(self.descriptor, timeout: remaining)
        }
    }

    /// The next datagram already queued; `nil` when none is.
    func receiveQueued() throws -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count >= 0 { return String(decoding: buffer[..<count], as: UTF8.self) }
        guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { throw TestFailure(description: "recv: errno \(errno)") }
        return nil
    }

    deinit {
        close(self.descriptor)
    }
}

/// A pipe whose write end a log handler writes to.
final class Pipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TestFailure(description: "pipe: errno \(errno)") }
        self.readEnd = ends[0]
        self.writeEnd = ends[1]
        _ = fcntl(self.readEnd, F_SETFL, O_NONBLOCK)
    }

    /// Everything written so far.
    func drain() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(self.readEnd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    deinit {
        close(self.readEnd)
        close(self.writeEnd)
    }
}

/// A process environment with the given variables, for process id 4242.
func environment(_ variables: [String: String]) -> ProcessEnvironment {
    ProcessEnvironment(variables: variables, userID: 990, processID: 4242, workingDirectory: "/")
}
