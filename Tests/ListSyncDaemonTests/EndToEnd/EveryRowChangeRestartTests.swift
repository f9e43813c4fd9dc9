import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

/// A change of every row, whose line the daemon writes to an unnamed file of the watch's state
/// directory as it encodes it and serves from its mapping (issue 19, ``ChangesetLineSpool``),
/// reaches every kind of client: a raw version 2 subscriber (in parts), a raw version 1
/// subscriber (whole, with the version 1 digest), and `listsync mirror` — each equal to `listsync
/// snapshot` after every save — and across a clean restart and a `kill -9`, subscribers that
/// resume from the first version get exactly the changesets they missed from the history the
/// restarted daemon read back from its log, not a snapshot.
extension EndToEndTests.Load {
    @Test
    func aChangeOfEveryRowReachesEveryClientAcrossARestartAndAKill() async throws {
        let (harness, file, options) = try await Self.startEveryRowWatch()
        let output = harness.path("mirror.json")
        let mirror = EndToEndTests.Persistence.StormClient(
            ["mirror", "rows", "--socket", harness.socketPath, "--output", output], logPath: harness.path("mirror.log"))
        try mirror.start()
        // The version 0 mirrors both kinds of subscriber resume from after each restart.
        var atStart: [Int: TestMirror] = [:]
        var live: [Int: MirrorSubscriber] = [:]
        for protocols in [[1, 2], [1]] {
            let subscriber = try await harness.subscribe("rows", protocols: protocols)
            #expect(try await subscriber.receiveUntil(timeout: .seconds(60)) { $0.mirror != nil })
            atStart[protocols.count] = subscriber.mirror
            live[protocols.count] = subscriber
        }
        #expect(live[2]?.digestVersion == .v2 && live[1]?.digestVersion == .v1)

        /// Every client holds the file, and what `listsync snapshot` prints.
        func converged(_ subscribers: [Int: MirrorSubscriber], _ label: String) async throws {
            // Read in turns, a second each: a subscriber left unread while another applies a
            // changeset of every row (slow in a debug build) would be cut off as a slow reader.
            var waiting = Set(subscribers.keys)
            let deadline = ContinuousClock.now + .seconds(180)
            while !waiting.isEmpty, ContinuousClock.now < deadline {
                for offered in waiting.sorted() {
                    do {
                        if try await subscribers[offered]!.receiveUntilMirroring(file, options: options, timeout: .seconds(1)) {
                            waiting.remove(offered)
                        }
                    } catch {
                        Issue.record("\(label): the subscriber offering \(offered) protocol(s): \(error)\n\(harness.log.suffix(4000))")
                        throw error
                    }
                }
            }
            #expect(waiting.isEmpty, "\(label): the subscribers offering \(waiting.sorted()) protocol(s) do not hold the file\n\(harness.log.suffix(2000))")
            let snapshot = try await harness.snapshot(of: "rows")
            for (offered, subscriber) in subscribers.sorted(by: { $0.key < $1.key }) {
                let equal = subscriber.mirror?.document == snapshot
                #expect(equal, "\(label): the subscriber offering \(offered) protocol(s) differs from listsync snapshot")
            }
            #expect(try await harness.waitUntilFile(output, matchesSnapshotOf: "rows", timeout: .seconds(120)), "\(label)\n\(mirror.log.suffix(2000))")
        }

        try EndToEndTests.Subscribers.save(Self.everyRowList(1), to: file)
        try await converged(live, "version 1")
        #expect(live[2].map { $0.changesetParts.count > 10 } == true, "a changeset of every row comes in parts")
        #expect(live[1].map { $0.changesetParts.isEmpty && $0.changesetMessages.count == 1 } == true, "whole to a version 1 client")
        let pid = try #require(harness.daemon?.pid)
        let spooled = try EndToEndTests.MappedVersions.mappings(of: pid, under: harness.path("state")).filter { $0.hasSuffix("(deleted)") }
        #expect(!spooled.isEmpty, "the line is mapped from a file with no name")

        for (version, killed) in [(2, false), (3, true)] {
            let label = "version \(version), after a \(killed ? "kill -9" : "clean stop")"
            try await EndToEndTests.MappedVersions.stop(harness, killed: killed)
            try await mirror.kill()
            try await harness.startDaemon()
            try mirror.start()
            // From version 0: every changeset since, from the history read back from the log.
            var resumed: [Int: MirrorSubscriber] = [:]
            for (offered, start) in atStart {
                do {
                    resumed[offered] = try await harness.subscribe("rows", mirror: start, protocols: offered == 2 ? [1, 2] : [1])
                } catch {
                    Issue.record("\(label): the subscriber offering \(offered) protocol(s) could not resume: \(error)\n\(harness.log.suffix(3000))")
                    throw error
                }
            }
            try await converged(resumed, label + ", resumed from version 0")
            for (offered, subscriber) in resumed {
                #expect(subscriber.snapshots == 0, "\(label): the subscriber offering \(offered) protocol(s) resynchronised")
                #expect(subscriber.changesetMessages.map(\.cursor.seq) == Array(1..<UInt64(version)), "\(label), offering \(offered)")
            }
            try EndToEndTests.Subscribers.save(Self.everyRowList(version), to: file)
            try await converged(resumed, label)
        }
        try await mirror.kill()
        #expect(try await harness.stopDaemon() == 0)
    }
}
