import Testing

@testable import ListSyncBenchmarks

/// Where the latency benchmark's one-row edits fall (`--edit-places`): the forward places are
/// the rows the benchmark always edited; the spread places are distinct and cover the file.
@Suite struct LatencyFileEditPlacesTests {
    /// The rows `edits` edits of a `rows`-row file change.
    static func places(_ places: LatencyFile.EditPlaces, rows: Int, edits: Int) -> [Int] {
        (0..<edits).map { places.row(ofEdit: $0, rows: rows) }
    }

    @Test func forwardPlacesAreTheRowsTheBenchmarkAlwaysEdited() {
        for rows in [20_000, 1_000_000, 10_000_000] {
            #expect(Self.places(.forward, rows: rows, edits: 32) == (0..<32).map { $0 * 7919 % rows })
        }
        // Of a 1M-row file, 32 forward edits stay in its first quarter (why spread places exist).
        #expect(Self.places(.forward, rows: 1_000_000, edits: 32).allSatisfy { $0 < 250_000 })
    }

    @Test(arguments: [(1_000_000, 16), (10_000_000, 16), (1_000_000, 5), (20_000, 8), (20_000, 5), (10_000, 200), (1_048_576, 16), (999_999, 16)])
    func spreadPlacesAreDistinctAndCoverEveryQuarter(rows: Int, edits: Int) {
        let places = Self.places(.spread, rows: rows, edits: edits)
        #expect(Set(places).count == edits, "\(places)")
        #expect(places.allSatisfy { (0..<rows).contains($0) })
        #expect(Set(places.map { $0 * 4 / rows }) == [0, 1, 2, 3], "\(places)")
    }

    @Test(arguments: [2, 3, 10, 20_000, 1_000_000, 1_048_576, 10_000_000, 999_999, 30_030])
    func theSpreadStrideIsCoPrimeWithTheRowsSoEveryRowIsEditedOnceBeforeAnyTwice(rows: Int) {
        let stride = LatencyFile.EditPlaces.spreadStride(rows: rows)
        var (a, b) = (stride, rows)
        while b != 0 { (a, b) = (b, a % b) }
        #expect(a == 1, "stride \(stride) of \(rows) rows")
        // Near the golden ratio's share of the file: the places jump back and forth over it.
        #expect(abs(Double(stride) / Double(rows) - 0.618) < 0.1 || rows < 10, "stride \(stride) of \(rows) rows")
        if rows <= 20_000 {
            #expect(Set(Self.places(.spread, rows: rows, edits: rows)).count == rows)
        }
    }

    @Test func aFileOfOneRowIsEditedAtItsOnlyRow() {
        #expect(Self.places(.spread, rows: 1, edits: 3) == [0, 0, 0])
        #expect(Self.places(.forward, rows: 1, edits: 3) == [0, 0, 0])
    }
}
