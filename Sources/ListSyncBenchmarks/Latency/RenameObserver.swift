import Foundation
import Synchronization

/// When the kernel lets a watcher know of each rename over a file: a thread of the benchmark's
/// own reads an inotify descriptor on the file's directory (`IN_MOVED_TO`) and notes the instant
/// each event for the file arrives.
///
/// A rename over a file on ext4 (`auto_da_alloc`) first starts the writeback of the new file's
/// data, and only then renames and queues the event: no watcher — the daemon included — can
/// know of the new version sooner. The time from the rename's start to this event is the file
/// system's share of the latency, which the benchmark reports beside it.
final class RenameObserver: Sendable {
    private let descriptor: Int32
    private let arrivals = Mutex<[ContinuousClock.Instant]>([])
    private let stopped = Atomic<Bool>(false)

    /// Starts observing renames over `file`.
    init(file: URL) throws {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else {
            throw LatencySubscribers.Failure(description: "inotify_init1: \(String(cString: strerror(errno)))")
        }
        guard inotify_add_watch(descriptor, file.deletingLastPathComponent().path, UInt32(IN_MOVED_TO)) >= 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw LatencySubscribers.Failure(description: "inotify_add_watch: \(reason)")
        }
        self.descriptor = descriptor
        let name = file.lastPathComponent
        let thread = Thread { [self] in self.read(name: name) }
        thread.name = "rename observer"
        thread.start()
    }

    deinit {
        Glibc.close(self.descriptor)
    }

    /// The instant the event of the `number`th rename (from 0) arrived, waiting up to `timeout`
    /// for it.
    func arrival(ofRename number: Int, timeout: Duration = .seconds(10)) throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let instant = self.arrivals.withLock({ $0.count > number ? $0[number] : nil }) {
                return instant
            }
            usleep(200)
        }
        throw LatencySubscribers.Failure(description: "no inotify event for rename \(number + 1) within \(timeout)")
    }

    /// Stops the thread (within 20 ms).
    func stop() {
        self.stopped.store(true, ordering: .relaxed)
    }

    private func read(name: String) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var poll = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
        while !self.stopped.load(ordering: .relaxed) {
            guard Glibc.poll(&poll, 1, 20) > 0 else { continue }
            let now = ContinuousClock.now
            let count = buffer.withUnsafeMutableBytes { Glibc.read(self.descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            var offset = 0
            var matched = 0
            buffer.withUnsafeBytes { bytes in
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = bytes[nameStart..<nameStart + Int(event.len)].prefix { $0 != 0 }
                    if String(decoding: nameBytes, as: UTF8.self) == name { matched += 1 }
                    offset = nameStart + Int(event.len)
                }
            }
            if matched > 0 {
                self.arrivals.withLock { $0 += Array(repeating: now, count: matched) }
            }
        }
    }
}
