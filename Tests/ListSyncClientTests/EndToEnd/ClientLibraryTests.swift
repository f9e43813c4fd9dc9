import Glibc
import ListFormats
import ListSyncClient
import ListSyncProtocol
import Synchronization
import Testing
import UnixSockets
import ListSyncTestSupport

extension ClientEndToEnd {
    /// `ListSyncClient` in this process against the real daemon.
    @Suite struct ClientLibraryTests {
        /// What one subscriber saw.
        struct Seen: Sendable, Equatable {
            var changesets: [Cursor] = []
            var digests: [ListDigest] = []
            var document: ListDocument?
        }

        /// How many subscribers hold the first version.
        final class CurrentCount: Sendable {
            let count = Mutex(0)
        }

        /// Ten subscribers receive the same changesets in the same order, and each mirror equals
        /// the file.
        @Test func tenSubscribersSeeTheSameSequence() async throws {
            let harness = try await EndToEndHarness.running()
            let client = ListSyncClient(configuration: ClientConfiguration(socketPath: harness.socketPath))
            let versions = 6
            let current = CurrentCount()
            let seen = try await withThrowingTaskGroup(of: Seen.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        try await client.withMirror(of: "products") { updates in
                            var seen = Seen()
                            for try await update in updates {
                                if case .snapshot = update.event, update.isCurrent {
                                    current.count.withLock { $0 += 1 }
                                }
                                if case .changeset(let changeset) = update.event {
                                    seen.changesets.append(changeset.cursor)
                                    seen.digests.append(changeset.digest)
                                }
                                if seen.changesets.count == versions {
                                    seen.document = update.mirror.document
                                    return seen
                                }
                            }
                            return seen
                        }
                    }
                }
                // A subscriber that subscribed late would start from a later snapshot.
                try await eventually("all ten hold the first version") { current.count.withLock { $0 } == 10 }
                for version in 1...versions {
                    try await harness.save(ProductVersions.csv(version))
                    try await harness.waitForVersion(UInt64(version))
                }
                var all: [Seen] = []
                for try await one in group { all.append(one) }
                return all
            }
            #expect(seen.count == 10)
            #expect(seen.allSatisfy { $0 == seen[0] })
            #expect(seen[0].changesets.map(\.seq) == Array(1...UInt64(versions)))
            #expect(seen[0].document == harness.document("products.csv"))
        }

        /// A mirror kept from an ended subscription resumes: the daemon sends exactly the missed
        /// changesets, and the mirror ends equal to the file.
        @Test func aKeptMirrorResumesWithTheMissedChangesets() async throws {
            let harness = try await EndToEndHarness.running()
            let client = ListSyncClient(configuration: ClientConfiguration(socketPath: harness.socketPath))
            let kept = try await client.withMirror(of: "products") { updates in
                for try await update in updates where update.isCurrent { return update.mirror }
                throw TestFailure("the subscription ended")
            }
            #expect(kept.cursor?.seq == 0)
            for version in 1...3 {
                try await harness.save(ProductVersions.csv(version))
                try await harness.waitForVersion(UInt64(version))
            }
            let events = try await client.withMirror(resuming: kept) { updates in
                var events: [MirrorUpdate.Event] = []
                for try await update in updates {
                    events.append(update.event)
                    if update.isCurrent, case .changeset = update.event {
                        #expect(update.mirror.document == harness.document("products.csv"))
                        return events
                    }
                }
                return events
            }
            guard case .subscribed(let subscription) = events.first else { throw TestFailure("no subscription first: \(events)") }
            #expect(subscription.mode == .resume)
            let cursors = events.compactMap { event -> UInt64? in
                if case .changeset(let changeset) = event { return changeset.cursor.seq }
                return nil
            }
            #expect(cursors == [1, 2, 3])
            #expect(!events.contains { if case .snapshot = $0 { return true } else { return false } })
        }
    }
}

extension ClientEndToEnd.ClientLibraryTests {
    /// A daemon that accepts the connection and then says nothing is given up on after the idle
    /// timeout, not waited for forever.
    @Test func aSilentDaemonIsGivenUpOn() async throws {
        let harness = try EndToEndHarness()
        let listener = try SilentListener(path: harness.socketPath)
        let configuration = ClientConfiguration(
            socketPath: harness.socketPath, reconnect: ReconnectPolicy(initialAttempts: 1), idleTimeout: .milliseconds(200))
        let started = ContinuousClock.now
        await #expect {
            try await ListSyncClient(configuration: configuration).withMirror(of: "products") { updates in
                for try await _ in updates {}
            }
        } throws: { error in
            (error as? ClientError) == .unreachable(socketPath: harness.socketPath, reason: "no message from the daemon within the idle timeout")
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        withExtendedLifetime(listener) {}
    }

    /// A connect that finds the daemon's listen queue full fails with `EAGAIN`; the client
    /// retries until the daemon accepts it, even with no reconnection allowed.
    @Test func aClientThatFindsTheListenQueueFullRetriesUntilServed() async throws {
        let harness = try await EndToEndHarness.running()
        let daemon = try #require(harness.daemon)
        daemon.send(SIGSTOP)
        // Queue connections the stopped daemon cannot accept until one is refused with EAGAIN.
        var queued: [Int32] = []
        defer { queued.forEach { close($0) } }
        while queued.count < 100_000 {
            do {
                queued.append(try UnixStreamSocket.connect(to: harness.socketPath, waiting: false))
            } catch {
                try #require(error.code == EAGAIN, "\(error)")
                break
            }
        }
        let resume = Task { [pid = daemon.pid] in
            try await Task.sleep(for: .milliseconds(300))
            kill(pid, SIGCONT)
        }
        let watches = try await ListSyncClient(configuration: ClientConfiguration(socketPath: harness.socketPath, reconnect: .never)).watches()
        #expect(watches.map(\.name) == ["products"])
        try await resume.value
    }
}

/// A Unix socket that listens and never accepts: connections succeed and stay silent.
final class SilentListener {
    let descriptor: Int32

    init(path: String) throws {
        self.descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let bound = try UnixSocketAddress(path: path).withSocketAddress { bind(self.descriptor, $0, $1) }
        guard bound == 0, listen(self.descriptor, 8) == 0 else { throw TestFailure("cannot listen on \(path): errno \(errno)") }
    }

    deinit {
        close(self.descriptor)
    }
}
