import ListDiff
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

/// A `changeset` line encoded with a ``LineSpill`` (issue 19: the daemon writes a long line to a
/// file as it is encoded): the bytes the spill took, then the bytes returned, are the line
/// encoded without one — for random lists and edits in every format, linear and sectioned, at
/// thresholds from one byte up — and what the encoding holds between two hand-overs stays near
/// the threshold. A spill that refuses the bytes leaves them all in the line returned.
@Suite struct LineSpillTests {
    /// Takes every hand-over (or, `refusing`, every other one), noting the most bytes it was
    /// handed at once.
    final class CollectingSpill: LineSpill {
        let threshold: Int
        let refusing: Bool
        private(set) var taken: [UInt8] = []
        private(set) var calls = 0
        private(set) var largestHandOver = 0

        init(threshold: Int, refusing: Bool = false) {
            self.threshold = threshold
            self.refusing = refusing
        }

        func spill(_ bytes: inout [UInt8]) {
            self.calls += 1
            self.largestHandOver = max(self.largestHandOver, bytes.count)
            guard !self.refusing || self.calls.isMultiple(of: 2) else { return }
            self.taken += bytes
            bytes.removeAll(keepingCapacity: true)
        }
    }

    @Test func theBytesSpilledThenTheRestAreTheLine() throws {
        var rng = SplitMix(seed: 0x19_5b11)
        var spilled = 0
        for round in 0..<200 {
            let format = [ListFormat.csv(delimiter: .comma), .csv(delimiter: .tab), .ndjson, .json][round % 4]
            let options = ReadOptions(
                format: format, key: Bool.random(using: &rng) ? ["id"] : [], sectionBy: Int.random(in: 0..<3, using: &rng) == 0 ? "group" : nil)
            typealias Row = ChangesetRecordEncodingTests.Row
            var rows = (0..<Int.random(in: 0...40, using: &rng)).map { Row(id: $0, using: &rng) }
            let old = try ListReader(options: options).read(bytes: Array(ChangesetRecordEncodingTests.text(rows, format: format, using: &rng).utf8))
            rows = ChangesetRecordEncodingTests.edited(rows, using: &rng)
            let new = try ListReader(options: options).read(bytes: Array(ChangesetRecordEncodingTests.text(rows, format: format, using: &rng).utf8))
            let changeset = StagedChangeset(source: old.sections, target: new.sections)
            guard !changeset.isEmpty else { continue }
            let cursor = Cursor(epoch: Epoch(rawValue: 0x5eed), seq: UInt64(round + 1))
            let digest = ListDigest(of: new, version: .v2)
            let schema = SchemaUpdate(from: old, to: new)
            func line(_ spill: (any LineSpill)?) -> [UInt8] {
                ServerMessage.encodedChangeset(
                    watch: "w", cursor: cursor, digest: digest, schema: schema, changeset: changeset, source: old, target: new, spill: spill)
            }
            let whole = line(nil)
            let threshold = [1, 7, 64, 300, 4096][Int.random(in: 0..<5, using: &rng)]
            let spill = CollectingSpill(threshold: threshold, refusing: Bool.random(using: &rng))
            let rest = line(spill)
            ChangesetRecordEncodingTests.expectSame(spill.taken + rest, whole, "round \(round), threshold \(threshold)")
            if spill.calls > 0 { spilled += 1 }
            // One entry past the threshold at most (a refused hand-over keeps the bytes, so
            // the next one holds two); the entries here are a few hundred bytes.
            #expect(spill.largestHandOver <= (spill.refusing ? 2 : 1) * (threshold + 2048), "round \(round)")

            if !old.isSectioned {
                let linear = StagedChangeset(source: old.records, target: new.records)
                func linearLine(_ spill: (any LineSpill)?) -> [UInt8] {
                    ServerMessage.encodedChangeset(
                        watch: "w", cursor: cursor, digest: digest, schema: schema, changeset: linear, source: old, sourceRecords: old.records,
                        target: new, targetRecords: new.records, spill: spill)
                }
                let linearSpill = CollectingSpill(threshold: threshold)
                let linearRest = linearLine(linearSpill)
                ChangesetRecordEncodingTests.expectSame(linearSpill.taken + linearRest, linearLine(nil), "round \(round), linear")
            }
        }
        #expect(spilled > 100, "most rounds hand bytes over")
    }
}
