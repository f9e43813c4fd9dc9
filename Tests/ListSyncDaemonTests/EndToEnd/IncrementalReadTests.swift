import Glibc
import ListFormats
import ListSyncTestSupport
import Testing

extension EndToEndTests {
    /// The daemon re-parses only the chunks of a file that changed (issue 19): a large file saved
    /// in place, by rename and by appending publishes what a whole read would — every changeset
    /// applies with its digest checked, and the mirror equals the file and `listsync snapshot`
    /// at every cursor.
    @Suite struct IncrementalReads {
        @Test func aLargeFileEditedInPlaceByRenameAndByAppend() async throws {
            let harness = try DaemonHarness()
            let file = harness.path("products.csv")
            // Quoted notes with line breaks, so that chunks meet rows that span lines.
            func row(_ index: Int, version: Int = 0) -> String {
                index % 7 == 0
                    ? "SKU\(index),item \(index),\(index % 997).\(version),\"two\nlines, \"\"\(version)\"\"\""
                    : "SKU\(index),item \(index),\(index % 997).\(version),plain"
            }
            // 30,000 rows, about 1 MB: sixteen chunks of 64 KiB (the daemon's chunk size), so
            // each save below changes some chunks and keeps the others.
            var rows = (0..<30_000).map { row($0) }
            func text() -> String { "sku,name,price,note\r\n" + rows.joined(separator: "\r\n") + "\r\n" }
            try FileOperations.write(text(), to: file)
            try harness.writeConfig(["name = \"list\"\npath = \"\(file)\"\nkey = [\"sku\"]"])
            try await harness.startDaemon()
            let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])
            let subscriber = try await harness.subscribe("list")
            #expect(try await subscriber.receiveUntilMirroring(file, options: options, timeout: .seconds(60)), "initial snapshot")

            let saves: [(String, () throws -> Void)] = [
                ("one row changed, written in place", {
                    rows[15_000] = row(15_000, version: 1)
                    try FileOperations.write(text(), to: file)
                }),
                ("a row changed, one inserted and one deleted, renamed over", {
                    rows[7] = row(7, version: 2)
                    rows.insert(row(500_000), at: 22_500)
                    rows.remove(at: 7_501)
                    try FileOperations.write(text(), to: harness.path(".products.csv.tmp"))
                    try FileOperations.rename(harness.path(".products.csv.tmp"), to: file)
                }),
                ("1,000 rows appended", {
                    let tail = (200_000..<201_000).map { row($0) }
                    rows += tail
                    try FileOperations.write([tail.joined(separator: "\r\n") + "\r\n"], to: file, flags: O_WRONLY | O_APPEND)
                }),
                ("the last rows cut off, written in place", {
                    rows.removeLast(500)
                    rows[rows.count - 1] = row(900_000, version: 3)
                    try FileOperations.write(text(), to: file)
                }),
            ]
            for (number, (save, write)) in saves.enumerated() {
                try write()
                #expect(
                    try await subscriber.receiveUntil(timeout: .seconds(60)) { $0.changesets.count > number },
                    "\(save): no changeset\n\(harness.log)")
                #expect(try await subscriber.receiveUntilMirroring(file, options: options, timeout: .seconds(60)), "\(save)\n\(harness.log)")
                #expect(try await harness.snapshot(of: "list") == subscriber.mirror?.document, "\(save): snapshot")
                #expect(subscriber.mirror?.cursor.seq == UInt64(subscriber.changesets.count), "\(save): every changeset applied")
            }
            #expect(subscriber.snapshots == 1, "resynchronised by snapshot")
            #expect(try await harness.stopDaemon() == 0)
        }
    }
}
