import Foundation
import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Synchronization
import Testing
@testable import ListSyncDaemon

extension EndToEndTests {
    /// Files written while the daemon watches them: a version is published only once it is
    /// complete — no writer has the file open — and a file that keeps changing is still published
    /// at least every `settle_max_ms`. Each runs alone: their writers and settle bounds are timed,
    /// and another daemon beside them would slow both.
    @Suite(.alone) struct Settling {}
}

/// Versions of a keyed list in which every record names its version, so a mirror's content says
/// which version it claims to be, and any prefix of a version differs from every whole version.
enum NumberedLists {
    enum Format: String, CaseIterable, Sendable {
        case csv, json
    }

    /// Version `version`: 30 to 52 records, keyed by `id`, each with the version number.
    static func version(_ version: Int, format: Format) -> String {
        let ids = (0..<(30 + (version * 7) % 23)).map { ($0 * 3 + version) % 61 }
        switch format {
        case .csv:
            return "id,v,value\n" + ids.map { "\($0),\(version),\(($0 * (version + 1)) % 97)\n" }.joined()
        case .json:
            return "[\n" + ids.map { #"  {"id": \#($0), "v": \#(version), "value": \#(($0 * (version + 1)) % 97)}"# }.joined(separator: ",\n") + "\n]\n"
        }
    }

    /// The lines of `version`, each with its newline: what a writer writing line by line writes.
    static func lines(_ version: Int, format: Format) -> [String] {
        self.version(version, format: format).split(separator: "\n").map { $0 + "\n" }
    }
}

/// How the storm's writers save a new version.
enum SaveStrategy: CaseIterable, Sendable {
    /// Truncate and write in place, one line at a time with a pause after each.
    case inPlaceLineByLine
    /// Truncate and write in place with one `write`.
    case singleWrite
    /// Write a temporary file, then rename it over the watched one.
    case temporaryThenRename

    func save(_ text: String, lines: [String], to path: String) throws {
        switch self {
        case .inPlaceLineByLine:
            try FileOperations.write(lines, to: path, pause: .milliseconds(1))
        case .singleWrite:
            try FileOperations.write(text, to: path)
        case .temporaryThenRename:
            try FileOperations.write(text, to: path + ".tmp")
            try FileOperations.rename(path + ".tmp", to: path)
        }
    }
}

extension EndToEndTests.Settling {
    /// A harness watching a numbered list at version 0 in each of `formats` (`f0.csv`,
    /// `f1.json`…), each with a subscriber that records every version it mirrors.
    private func start(
        _ formats: [NumberedLists.Format], extra: String = "", tunables: String = DaemonHarness.tunables
    ) async throws -> (DaemonHarness, [(path: String, format: NumberedLists.Format)], [MirrorSubscriber]) {
        let harness = try DaemonHarness()
        let files = formats.enumerated().map { index, format in
            (path: harness.path("f\(index).\(format.rawValue)"), format: format)
        }
        for file in files {
            try FileOperations.write(NumberedLists.version(0, format: file.format), to: file.path)
        }
        try harness.writeConfig(files.indices.map { "name = \"f\($0)\"\npath = \"\(files[$0].path)\"\nkey = [\"id\"]" }, extra: extra, tunables: tunables)
        try await harness.startDaemon()
        var subscribers: [MirrorSubscriber] = []
        for index in files.indices {
            let subscriber = try await harness.subscribe("f\(index)")
            subscriber.recordsDocuments = true
            subscribers.append(subscriber)
        }
        return (harness, files, subscribers)
    }

    /// Expects every version `subscriber` mirrored to be one of versions `written`, and no
    /// `invalid` status. Returns how many versions it mirrored.
    @discardableResult
    private func expectOnlyComplete(
        _ subscriber: MirrorSubscriber, format: NumberedLists.Format, written: ClosedRange<Int>, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        let reader = ListReader(options: ReadOptions(format: format == .csv ? .csv(delimiter: .comma) : .json, key: ["id"]))
        let complete = Set(try written.map { try reader.read(bytes: Array(NumberedLists.version($0, format: format).utf8)).document })
        let torn = subscriber.documents.filter { !complete.contains($0) }
        #expect(torn.isEmpty, "\(subscriber.watch): \(torn.count) of \(subscriber.documents.count) versions published were never written whole: \(torn.first.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
        let invalid = subscriber.statuses.filter { $0.state == .invalid }
        #expect(invalid.isEmpty, "\(subscriber.watch): \(invalid)", sourceLocation: sourceLocation)
        return subscriber.documents.count
    }

    /// Handles what every subscriber received, for about `duration` in all.
    private func drain(_ subscribers: [MirrorSubscriber], for duration: Duration) async throws {
        let slice = duration / max(1, subscribers.count)
        for subscriber in subscribers {
            try await subscriber.receiveUntil(timeout: slice) { _ in false }
        }
    }

    @Test(arguments: NumberedLists.Format.allCases)
    func halfWrittenFileIsPublishedOnceWhenComplete(format: NumberedLists.Format) async throws {
        let (harness, files, subscribers) = try await self.start([format])
        let (file, subscriber) = (files[0], subscribers[0])
        #expect(try await subscriber.receiveUntil { $0.snapshots == 1 })
        // Cut at a line boundary: for CSV the first half is itself a valid, shorter list.
        let lines = NumberedLists.lines(1, format: format)
        let half = lines.count / 2
        try await FileOperations.write([lines[..<half].joined(), lines[half...].joined()], to: file.path, pausing: .seconds(1))
        let options = ReadOptions(format: format == .csv ? .csv(delimiter: .comma) : .json, key: ["id"])
        #expect(try await subscriber.receiveUntilMirroring(file.path, options: options), "\(harness.log)")
        // Anything else published would come within the settle delays.
        try await subscriber.receiveUntil(timeout: .milliseconds(600)) { _ in false }
        #expect(subscriber.changesets.count == 1, "\(subscriber.changesets.count) changesets\n\(harness.log)")
        try self.expectOnlyComplete(subscriber, format: format, written: 0...1)
        #expect(try await harness.stopDaemon() == 0)
    }

    /// How much later than `settle_max_ms` a version of a file that keeps changing may reach its
    /// subscriber: what follows the announcement (read, parse, diff, the state's flushes, the
    /// socket, the test's polling of four subscribers) plus a read or two refused because the next
    /// save began during it (each retried at that save's close, about 12 ms later), on a loaded
    /// 2-core machine. When refusals pile up — as with the completeness mark placed after the
    /// read had returned to its task, which let any save begun in between refuse it — gaps reach
    /// 2.5–5 s. (1.53 s was seen with every other suite running beside it at a load of 16.)
    static let settleBoundMargin = Duration.milliseconds(1_000)

    /// Four files, each rewritten every 10 ms for 5 s — two in place (truncate, half, 2 ms pause,
    /// the rest), two by rename — each get a version to their subscriber at least every
    /// `settle_max_ms` (plus ``settleBoundMargin``), and each version is one the writer completed.
    /// With quiet settle delays of 10 ms (the harness's) the writers' pauses count as quiet and
    /// announce the files often, but each read races the next save; with 300 ms the files are
    /// never quiet and only the bound announces them. Four at once: their reads wait for each
    /// other on the daemon's threads, as on a busy host.
    @Test(arguments: [10, 300])
    func filesRewrittenEveryTenMillisecondsArePublishedWholeWhileTheWritersGoOn(quietMilliseconds: Int) async throws {
        let settleMaxMilliseconds = 1000
        let tunables = DaemonHarness.tunables
            .replacingOccurrences(of: "settle_after_close_ms = 10", with: "settle_after_close_ms = \(quietMilliseconds)")
            .replacingOccurrences(of: "settle_after_modify_ms = 100", with: "settle_after_modify_ms = \(max(100, quietMilliseconds))")
        let (harness, files, subscribers) = try await self.start(
            Array(repeating: .json, count: 4), extra: "settle_max_ms = \(settleMaxMilliseconds)", tunables: tunables)
        for subscriber in subscribers {
            #expect(try await subscriber.receiveUntil { $0.snapshots == 1 })
        }
        let storm = Duration.seconds(5)
        let writers = files.enumerated().map { index, file in
            BlockingThread { () throws -> Int in
                let end = ContinuousClock.now + storm
                var version = 0
                while ContinuousClock.now < end {
                    version += 1
                    let text = NumberedLists.version(version, format: file.format)
                    if index % 2 == 1 {
                        try SaveStrategy.temporaryThenRename.save(text, lines: [], to: file.path)
                    } else {
                        // Two writes with a pause between: a read in between would see half a list.
                        let middle = text.utf8.count / 2
                        try FileOperations.write(
                            [String(decoding: Array(text.utf8)[..<middle], as: UTF8.self), String(decoding: Array(text.utf8)[middle...], as: UTF8.self)],
                            to: file.path, pause: .milliseconds(2))
                    }
                    usleep(10_000)
                }
                return version
            }
        }
        let started = ContinuousClock.now
        var arrivals = Array(repeating: [Duration](), count: files.count)
        while !writers.allSatisfy(\.isFinished) {
            for (index, subscriber) in subscribers.enumerated() {
                let before = subscriber.changesets.count
                try await subscriber.receiveUntil(timeout: .milliseconds(10)) { _ in false }
                if subscriber.changesets.count > before {
                    arrivals[index].append(ContinuousClock.now - started)
                }
            }
        }
        let ended = ContinuousClock.now - started
        var written: [Int] = []
        for writer in writers { written.append(try await writer.value()) }
        let bound = .milliseconds(settleMaxMilliseconds) + Self.settleBoundMargin
        for (index, file) in files.enumerated() {
            #expect(try await subscribers[index].receiveUntilMirroring(file.path, options: ReadOptions(format: .json, key: ["id"])), "f\(index)\n\(harness.log)")
            // From the writer's start to the first version, between versions, and from the last
            // one to the writer's end: the file changed all along.
            let gaps = zip([.zero] + arrivals[index], arrivals[index] + [ended]).map { $1 - $0 }
            #expect(gaps.allSatisfy { $0 <= bound }, "f\(index): gaps \(gaps) over \(bound) while \(written[index]) versions were written in \(storm)")
            try self.expectOnlyComplete(subscribers[index], format: file.format, written: 0...written[index])
        }
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func stormPublishesOnlyVersionsWrittenWhole() async throws {
        let count = 12
        let (harness, files, subscribers) = try await self.start((0..<count).map { NumberedLists.Format.allCases[$0 % NumberedLists.Format.allCases.count] })
        for subscriber in subscribers {
            #expect(try await subscriber.receiveUntil { $0.snapshots == 1 })
        }
        let storm = Duration.seconds(8)
        let writers = files.enumerated().map { index, file in
            let strategy = SaveStrategy.allCases[index % SaveStrategy.allCases.count]
            return BlockingThread { () throws -> Int in
                let end = ContinuousClock.now + storm
                var version = 0
                while ContinuousClock.now < end {
                    version += 1
                    try strategy.save(NumberedLists.version(version, format: file.format), lines: NumberedLists.lines(version, format: file.format), to: file.path)
                    usleep(UInt32(((version * 7 + index * 3) % 25) * 1_000))
                }
                return version
            }
        }
        while !writers.allSatisfy(\.isFinished) {
            try await self.drain(subscribers, for: .milliseconds(100))
        }
        var written: [Int] = []
        for writer in writers { written.append(try await writer.value()) }
        var published = 0
        for (index, file) in files.enumerated() {
            let options = ReadOptions(format: file.format == .csv ? .csv(delimiter: .comma) : .json, key: ["id"])
            #expect(try await subscribers[index].receiveUntilMirroring(file.path, options: options), "f\(index)\n\(harness.log)")
            published += try self.expectOnlyComplete(subscribers[index], format: file.format, written: 0...written[index])
        }
        // Enough versions went through for the check to mean something.
        #expect(published >= count * 5, "\(published) versions published of \(written.reduce(0, +)) written")
        #expect(try await harness.stopDaemon() == 0)
    }
}
