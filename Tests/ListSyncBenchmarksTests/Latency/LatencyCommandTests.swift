import ArgumentParser
import Testing

@testable import ListSyncBenchmarks

/// `ListSyncBenchmarks latency`'s options for where the edits fall and the edits after a restart.
@Suite struct LatencyCommandTests {
    @Test func byDefaultTheEditsMoveForwardAndARestartIsStoppedBothWays() throws {
        let command = try ListSyncBenchmarks.Latency.parse([])
        #expect(command.editPlaces == [.forward])
        #expect(command.restartSignal == [.kill, .term])
        #expect(!command.workload.contains("restart-edits"))
    }

    @Test func editPlacesAndRestartSignalsParseAndRepeat() throws {
        let parsed = try ListSyncBenchmarks.parseAsRoot([
            "latency", "--workload", "large", "--workload", "restart-edits", "--edit-places", "forward", "--edit-places", "spread",
            "--restart-signal", "kill", "--large-rows", "20000", "--large-edits", "4",
        ])
        let command = try #require(parsed as? ListSyncBenchmarks.Latency)
        #expect(command.workload == ["large", "restart-edits"])
        #expect(command.editPlaces == [.forward, .spread])
        #expect(command.restartSignal == [.kill])
        #expect(command.largeRows == 20_000)
        #expect(command.largeEdits == 4)
    }

    @Test(arguments: [["--edit-places", "sideways"], ["--restart-signal", "hup"], ["--edit-places"]])
    func anUnknownPlaceOrSignalIsRefused(arguments: [String]) {
        #expect(throws: (any Error).self) { try ListSyncBenchmarks.Latency.parse(arguments) }
    }
}
