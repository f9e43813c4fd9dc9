import Foundation
import Glibc
import Synchronization

/// A Prometheus-like scraper of a daemon's metrics endpoint (issue 20): on its own thread, an
/// HTTP `GET /metrics` every `interval` over a new loopback TCP connection, the whole response
/// read — so that the daemon's CPU time includes serving the exposition, as it would under a
/// real scraper.
final class MetricsScraper: Sendable {
    private struct State {
        var stopped = false
        var scrapes = 0
        var failure: String?
    }

    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    /// Starts scraping `http://127.0.0.1:port/metrics` every `interval`, the first at once.
    init(port: UInt16, interval: Duration = .seconds(1)) {
        let thread = Thread { [self] in
            var next = ContinuousClock.now
            while !self.state.withLock(\.stopped) {
                do {
                    try Self.scrape(port: port)
                    self.state.withLock { $0.scrapes += 1 }
                } catch {
                    self.state.withLock { $0.failure = $0.failure ?? "\(error)" }
                }
                next += interval
                // Sleeps in short steps so that `stop()` returns soon.
                while !self.state.withLock(\.stopped), ContinuousClock.now < next {
                    usleep(10_000)
                }
            }
            self.finished.signal()
        }
        thread.start()
    }

    /// Stops scraping and returns how many scrapes succeeded; throws the first failure.
    func stop() throws -> Int {
        self.state.withLock { $0.stopped = true }
        self.finished.wait()
        let state = self.state.withLock { $0 }
        if let failure = state.failure { throw LatencySubscribers.Failure(description: "scraping /metrics: \(failure)") }
        return state.scrapes
    }

    /// One `GET /metrics`, read to the end; throws unless it is a 200 carrying the exposition.
    static func scrape(port: UInt16) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LatencySubscribers.Failure(description: "socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = Self.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw LatencySubscribers.Failure(description: "connect to port \(port): errno \(errno)") }
        let request = Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/plain\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw LatencySubscribers.Failure(description: "send: errno \(errno)")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count >= 0 else { throw LatencySubscribers.Failure(description: "recv: errno \(errno)") }
            if count == 0 { break }
            response += buffer.prefix(count)
        }
        let text = String(decoding: response, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 200"), text.contains("listsync_watch_versions_total{") else {
            throw LatencySubscribers.Failure(description: "unexpected response: \(text.prefix(200))")
        }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now: bound to port 0, read, released.
    static func freePort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LatencySubscribers.Failure(description: "socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw LatencySubscribers.Failure(description: "bind 127.0.0.1:0: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
