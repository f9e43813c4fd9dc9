import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

/// Random edits with every save strategy to three watches while the daemon is killed with SIGKILL and restarted again and
/// again, and subscribers come and go: the history never breaks. The CI version; set
/// `LISTSYNC_STORM_SECONDS` for a longer one (scripts/storm).
extension EndToEndTests.Persistence {
    /// One watched file: its watch's name and settings, and how to write version *n* of it.
    struct StormFile: Sendable {
        var name: String
        var file: String
        var configuration: String
        var options: ReadOptions
        var content: @Sendable (Int) -> String
    }

    static let stormFiles = [
        StormFile(
            name: "linear", file: "linear.csv", configuration: "key = [\"sku\"]",
            options: ReadOptions(format: .csv(delimiter: .comma), key: ["sku"]), content: { Lists.catalogue($0) }),
        StormFile(
            name: "sectioned", file: "sectioned.csv", configuration: "key = [\"sku\"]\nsection_by = \"category\"",
            options: ReadOptions(format: .csv(delimiter: .comma), key: ["sku"], sectionBy: "category"), content: { Lists.catalogue($0) }),
        StormFile(
            name: "json", file: "sections.json", configuration: "key = [\"id\"]",
            options: ReadOptions(format: .json, key: ["id"]), content: { Lists.sectionedJSON($0) }),
    ]

    /// A subscriber that survives the daemon: reconnects from its mirror's cursor, and keeps every
    /// changeset it ever applied.
    final class StormSubscriber {
        let watch: StormFile
        private(set) var connection: MirrorSubscriber?
        private var pastChangesets: [ChangesetMessage] = []
        private var pastSnapshots = 0
        private var pastMirror: TestMirror?

        init(watch: StormFile) {
            self.watch = watch
        }

        var changesets: [ChangesetMessage] { self.pastChangesets + (self.connection?.changesetMessages ?? []) }
        var snapshots: Int { self.pastSnapshots + (self.connection?.snapshots ?? 0) }
        var mirror: TestMirror? { self.connection?.mirror ?? self.pastMirror }

        /// Takes what the connection received (it may be dead) and drops it.
        func harvest() {
            guard let connection else { return }
            self.pump(.milliseconds(50))
            self.pastChangesets += connection.changesetMessages
            self.pastSnapshots += connection.snapshots
            self.pastMirror = connection.mirror ?? self.pastMirror
            self.connection = nil
        }

        /// Connects again, resuming from the mirror's cursor.
        func connect(_ harness: DaemonHarness) throws {
            self.harvest()
            self.connection = try harness.subscriber(self.watch.name, mirror: self.pastMirror)
        }

        /// Reads what arrived, for at most `timeout`.
        func pump(_ timeout: Duration = .milliseconds(5)) {
            _ = try? self.connection?.waitUntil(timeout: timeout) { _ in false }
        }
    }

    @Test func aStormOfEditsCrashesAndReconnectsNeverBreaksTheHistory() throws {
        let seconds = getenv("LISTSYNC_STORM_SECONDS").flatMap { Int(String(cString: $0)) } ?? 20
        var random = SystemRandomNumberGenerator()
        let harness = try DaemonHarness()
        var versions: [Int] = Self.stormFiles.map { _ in 0 }
        for file in Self.stormFiles {
            try FileOperations.write(file.content(0), to: harness.path(file.file))
        }
        try harness.writeConfig(Self.stormFiles.map { "name = \"\($0.name)\"\npath = \"\($0.file)\"\n\($0.configuration)" })
        try harness.start()
        // Ten subscribers: four on the first watch, three on each of the others.
        let subscribers = Self.stormFiles.flatMap { file in (0..<(file.name == "linear" ? 4 : 3)).map { _ in StormSubscriber(watch: file) } }
        for subscriber in subscribers {
            try subscriber.connect(harness)
        }
        var kills = 0
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            // A burst of saves, up to 50 a second, with every save strategy.
            let killAt = Int.random(in: 0..<30, using: &random)
            var running = true
            for step in 0..<Int.random(in: 5...25, using: &random) {
                let index = Int.random(in: 0..<Self.stormFiles.count, using: &random)
                let file = Self.stormFiles[index]
                versions[index] = Int.random(in: 0..<12, using: &random)
                let text = file.content(versions[index])
                let path = harness.path(file.file)
                switch Int.random(in: 0..<4, using: &random) {
                case 0:  // Write a temporary file, rename it over.
                    try EndToEndTests.Subscribers.save(text, to: path)
                case 1:  // Truncate and write in place.
                    try FileOperations.write(text, to: path)
                case 2:  // Write in place slowly, in two halves.
                    let middle = text.index(text.startIndex, offsetBy: text.count / 2)
                    try FileOperations.write([String(text[..<middle]), String(text[middle...])], to: path, pause: .milliseconds(15))
                default:  // Delete, then create anew.
                    try FileOperations.remove(path)
                    try FileOperations.write(text, to: path)
                }
                for subscriber in subscribers where Int.random(in: 0..<10, using: &random) == 0 && running {
                    try subscriber.connect(harness)
                }
                subscribers.forEach { $0.pump() }
                usleep(UInt32.random(in: 20_000...60_000, using: &random))
                if step == killAt && running {
                    harness.daemon?.send(SIGKILL)
                    _ = try harness.daemon?.waitForExit()
                    subscribers.forEach { $0.harvest() }
                    running = false
                    kills += 1
                }
            }
            if !running {
                try harness.start()
                for subscriber in subscribers {
                    try subscriber.connect(harness)
                }
            }
            // A quiet point: every mirror equals its file.
            for subscriber in subscribers {
                let path = harness.path(subscriber.watch.file)
                let mirrors = try #require(subscriber.connection).waitUntilMirrors(path, options: subscriber.watch.options, timeout: .seconds(20))
                #expect(mirrors, "\(subscriber.watch.name) at \(String(describing: subscriber.mirror?.cursor)):\n\(harness.log.suffix(2000))")
            }
        }
        for subscriber in subscribers {
            subscriber.harvest()
        }
        #expect(try harness.stop() == 0)

        // No gap, no duplicate, one epoch, one snapshot (the first), and every cursor names one changeset.
        for subscriber in subscribers {
            let cursors = subscriber.changesets.map(\.cursor)
            #expect(Set(cursors.map(\.epoch)).count <= 1, "\(subscriber.watch.name): the epoch changed")
            #expect(zip(cursors, cursors.dropFirst()).allSatisfy { $1.seq == $0.seq + 1 }, "\(subscriber.watch.name): \(cursors.map(\.seq))")
            #expect(subscriber.snapshots == 1, "\(subscriber.watch.name): \(subscriber.snapshots) snapshots")
        }
        for file in Self.stormFiles {
            let all = subscribers.filter { $0.watch.name == file.name }
            var byCursor: [Cursor: ChangesetMessage] = [:]
            for message in all.flatMap(\.changesets) {
                let earlier = byCursor.updateValue(message, forKey: message.cursor)
                #expect(earlier == nil || earlier == message, "\(file.name): two changesets under \(message.cursor)")
            }
        }
        // About one kill every three seconds: at least 20 in a long run (the bar).
        #expect(kills >= min(20, seconds / 10), "the daemon was killed \(kills) times")
        print("storm: \(seconds) s, \(kills) kills, \(subscribers.map(\.changesets.count).reduce(0, +)) changesets received")
    }
}
