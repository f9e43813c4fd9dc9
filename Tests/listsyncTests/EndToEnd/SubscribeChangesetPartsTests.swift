import ListSyncProtocol
import Testing
import ListSyncTestSupport

extension CommandEndToEnd.SubscribeCommandTests {
    /// The parts of changesets a subscriber printed, decoded.
    static func parts(_ client: ChildProcess) throws -> [ChangesetPartMessage] {
        try self.messages(client).compactMap { message in
            if case .changesetPart(let part) = message { return part }
            return nil
        }
    }

    /// A changeset over 256 KiB prints with protocol version 2 as its parts (docs/PROTOCOL.md,
    /// *Changeset parts*), one bounded line each, numbered from 0, the last with the digest;
    /// with `--protocol 1` as one line. Put back together, the parts are that changeset.
    @Test func aLargeChangesetPrintsAsItsPartsWithVersion2AndWholeWithVersion1() async throws {
        let harness = try await EndToEndHarness.running()
        try await harness.save(ProductVersions.bulk(rows: 8_000, nameLength: 120))
        try await harness.waitForVersion(1)
        let v2 = try harness.client("subscribe", ["products", "--format", "ndjson"])
        let v1 = try harness.client("subscribe", ["products", "--format", "ndjson", "--protocol", "1"])
        try await eventually("both subscribers printed the snapshot", timeout: .seconds(60)) {
            try Self.snapshots(v2).last?.last == true && Self.snapshots(v1).last?.last == true
        }
        // Every row's name changes: a changeset of 8,000 updates, about 1.6 MB.
        try await harness.save(ProductVersions.bulk(rows: 8_000, nameLength: 121))
        try await eventually("the version 2 subscriber printed the last part", timeout: .seconds(60)) { try Self.parts(v2).last?.last == true }
        try await eventually("the version 1 subscriber printed the changeset", timeout: .seconds(60)) { try Self.changesets(v1).count == 1 }

        let parts = try Self.parts(v2)
        #expect(parts.count >= 4)
        #expect(parts.map(\.part) == Array(0..<parts.count))
        #expect(parts.dropLast().allSatisfy { !$0.last && $0.digest == nil } && parts.last?.digest != nil)
        #expect(try Self.changesets(v2).isEmpty, "no whole changeset line")
        for line in v2.outputLines where line.hasPrefix(#"{"type":"changeset""#) {
            #expect(line.utf8.count <= ChangesetParts.targetSize + 1024, "\(line.utf8.count) bytes")
        }
        var assembly = ChangesetPartAssembly(maximumBytes: 1 << 30)
        var whole: ChangesetMessage?
        for part in parts { whole = try assembly.add(part) }
        let assembled = try #require(whole)
        var single = try #require(try Self.changesets(v1).first)
        #expect(ServerMessage.changeset(single).encoded().count > ChangesetParts.targetSize)
        single.digest = assembled.digest
        #expect(assembled == single, "the parts are the changeset the version 1 line carries, but for the digest")
    }
}
