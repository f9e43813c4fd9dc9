import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

extension EndToEndTests.Reload {
    /// A reload that identifies records differently (a new key) arrives while a writer holds the
    /// file: nothing is read then (the status says `writing`), but the new epoch waits for the
    /// read that follows the writer's close — it is not lost with the request that read nothing.
    /// Subscribers get a snapshot under a new epoch, never a changeset that diffs records keyed
    /// one way against records keyed another under the old epoch's cursor.
    @Test func aNewKeyReloadedWhileAWriterHoldsTheFileStartsTheEpochAtTheNextRead() async throws {
        let (harness, file, subscriber) = try await Self.started("key = [\"sku\"]", options: ReadOptions(format: .csv(delimiter: .comma), key: ["sku"]))
        let oldCursor = try #require(subscriber.mirror?.cursor)

        // A writer rewrites the file with the same list and holds it open for 3 s.
        let content = Lists.catalogue(1)
        let writer = try DaemonProcess(
            executable: "/bin/sh",
            arguments: ["-c", #"exec 3>"$1"; printf %s "$2" >&3; sleep 3 3>&-"#, "sh", file, content],
            logPath: harness.path("writer.log"))
        #expect(try await subscriber.receiveUntil(timeout: .seconds(3)) { $0.status?.state == .writing }, "no writing status: \(subscriber.statuses)\n\(harness.log)")

        try await Self.reloaded(harness, to: "name = \"list\"\npath = \"catalogue.csv\"\nkey = [\"name\"]")
        #expect(try await writer.exited(timeout: .seconds(20)) == 0, "the writer failed: \(writer.log)")

        let byName = ReadOptions(format: .csv(delimiter: .comma), key: ["name"])
        #expect(try await subscriber.receiveUntil { $0.snapshots == 2 }, "no snapshot of a new epoch: \(subscriber.changesets)\n\(harness.log)")
        #expect(try await subscriber.receiveUntilMirroring(file, options: byName))
        let newCursor = try #require(subscriber.mirror?.cursor)
        #expect(newCursor.epoch != oldCursor.epoch)
        #expect(subscriber.changesets.allSatisfy { $0.epoch == oldCursor.epoch }, "a changeset after the reload: \(subscriber.changesets)")
        #expect(try await Self.listed(harness).map(\.cursor) == [newCursor])
        #expect(try await harness.stopDaemon() == 0)
    }
}
