import Glibc
import ListFormats
import ListSyncProtocol
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// Values nested as deep as the daemon accepts in a watched file are snapshotted, mirrored
    /// and subscribed to — also inside the deepest message envelope, a section inserted by a
    /// changeset; one level deeper, the daemon reports the watch invalid with the position.
    @Suite struct NestingDepthTests {
        /// An NDJSON record in section `section` whose member `v` holds arrays nested so that
        /// the record is `depth` levels deep.
        static func record(_ id: Int, section: String, depth: Int) -> String {
            #"{"id":\#(id),"g":"\#(section)","v":"# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
        }

        @Test func theDeepestFileTheDaemonAcceptsReachesEveryClient() async throws {
            let deepest = ReadOptions.defaultMaxNestingDepth
            let watch = EndToEndHarness.Watch(name: "products", file: "products.ndjson", key: ["id"], sectionBy: "g")
            let harness = try EndToEndHarness(watches: [watch])
            let version0 = Self.record(1, section: "a", depth: deepest) + "\n" + #"{"id":2,"g":"a","v":1}"# + "\n"
            try FileContent.write(version0, to: harness.watched)
            try await harness.startDaemon()
            try await harness.waitForState(.ok)
            let mirror = try harness.client("mirror", ["products", "--output", harness.path("mirror.ndjson")])
            let subscriber = try harness.client("subscribe", ["products", "--format", "ndjson"])
            try await harness.waitUntilMirrored("mirror.ndjson", equals: "products.ndjson", "the snapshot")
            // Subscribed before version 1, or it would get version 1 as a snapshot, not a changeset.
            try await eventually("the subscriber has the snapshot") { subscriber.outputLines.contains { $0.contains(#""type":"snapshot""#) } }
            let snapshot = try await harness.run("snapshot", ["products", "--output-format", "ndjson"])
            #expect(snapshot.status == 0, "\(snapshot.error)")
            #expect(snapshot.output == version0, "\(snapshot.error)")

            // A new section in a changeset: the deepest envelope of a record.
            let version1 = version0 + Self.record(3, section: "b", depth: deepest) + "\n"
            try await harness.save(version1)
            try await harness.waitForVersion(1)
            try await harness.waitUntilMirrored("mirror.ndjson", equals: "products.ndjson", "version 1, a section inserted")
            let snapshot1 = try await harness.run("snapshot", ["products", "--output-format", "ndjson"])
            #expect(snapshot1.status == 0 && snapshot1.output == version1, "\(snapshot1.error)")
            try await eventually("the subscriber has the changeset") { subscriber.outputLines.contains { $0.contains(#""type":"changeset""#) } }
            for line in subscriber.outputLines {
                #expect(throws: Never.self) { try MessageParser.serverMessage(ofLine: Array(line.utf8)) }
            }

            // One level deeper: invalid, positioned; every client goes on with version 1.
            try await harness.save(version1 + Self.record(4, section: "b", depth: deepest + 1) + "\n")
            try await harness.waitForState(.invalid)
            try await eventually("the subscriber has the reason") {
                subscriber.output.contains("values nested deeper than \(deepest) levels") && subscriber.output.contains(#""line":4"#)
            }
            #expect(mirror.exitStatus == nil && subscriber.exitStatus == nil, "\(mirror.errorOutput)\(subscriber.errorOutput)")
            #expect(!mirror.errorOutput.contains("error:") && !subscriber.errorOutput.contains("error:"), "\(mirror.errorOutput)\(subscriber.errorOutput)")
            #expect(readFile(harness.path("mirror.ndjson")) == version1)
        }
    }
}
