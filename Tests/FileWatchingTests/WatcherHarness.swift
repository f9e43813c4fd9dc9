import Glibc
import Logging
import Synchronization
import Testing
@testable import FileWatching

/// What the harness saw for a path, read the moment the event arrived — as the tracker will.
enum Observation: Hashable, Sendable, CustomStringConvertible {
    /// `.changed`, and the file read back as these bytes.
    case content(String)
    /// `.missing`.
    case missing
    /// `.changed`, but reading failed or found nothing.
    case unreadable(String)

    var description: String {
        switch self {
        case .content(let text): return "content(\(text.debugDescription))"
        case .missing: return "missing"
        case .unreadable(let reason): return "unreadable(\(reason))"
        }
    }
}

/// A ``FileWatcher`` running on a scratch directory, whose events are consumed by a task that
/// reads every changed file at once with ``FileSnapshot/read(atPath:maximumAttempts:)`` and
/// records what it saw — when the event's ``CompletenessCheck`` confirms the read, as the tracker
/// does; reads it refuses are only counted. Each announcement may be read by several readers in
/// turn, as the daemon's trackers of watches that follow one file read it; each has its own record.
/// Waits poll the record with a deadline; nothing sleeps for a guessed time
/// except ``expectSettled(_:at:)``'s quiet period, which proves nothing *else* arrives.
final class WatcherHarness: Sendable {
    /// The read the consumer is about to make: of `path`, by reader `reader` (from 0), for the
    /// `announcement`th `.changed` event (from 0).
    struct ReadTurn: Sendable {
        let path: String
        let announcement: Int
        let reader: Int
    }

    private struct RecordKey: Hashable {
        let path: String
        let reader: Int
    }

    /// Small settle delays keep the tests fast; the reconciliation stays out of the way unless a
    /// test asks for it.
    static let fastConfiguration = FileWatcher.Configuration(
        closeSettleDelay: .milliseconds(20),
        modifySettleDelay: .milliseconds(150),
        disappearanceSettleDelay: .milliseconds(60),
        reconciliationInterval: .seconds(60)
    )

    /// Every test's wait for an expected observation gives up after this long (of time its task
    /// got to run, ``waitUntil(_:)``).
    static let timeout = Duration.seconds(5)
    /// The most one poll of ``waitUntil(_:)`` counts against ``timeout``: a 5 ms sleep that took
    /// longer means every thread of the pool was held.
    static let longestChargedPoll = Duration.milliseconds(100)

    /// The scratch directory the test's files live in.
    let root: String
    let watcher: FileWatcher
    /// Per path and reader, what was seen and when.
    private let observed = Mutex<[RecordKey: [(observation: Observation, at: ContinuousClock.Instant)]]>([:])
    /// How many reads their check refused.
    private let refusedReads = Atomic<Int>(0)
    /// Per path, when the watcher said a writer holds it (`.writing`).
    private let writingAnnouncements = Mutex<[String: [ContinuousClock.Instant]]>([:])

    private init(root: String, configuration: FileWatcher.Configuration) {
        self.root = root
        var logger = Logger(label: "FileWatcherTests")
        logger.logLevel = .warning
        self.watcher = FileWatcher(configuration: configuration, logger: logger)
    }

    /// Runs `body` with a started watcher, then stops it and checks its events stream finished.
    /// Every announcement is read by `readers` readers, one after the other; `beforeRead` runs
    /// before each read, e.g. to hold it back as a busy daemon's tracker reads late, and
    /// `duringRead` between the read's start mark and its opening the file.
    static func run(
        configuration: FileWatcher.Configuration = fastConfiguration,
        readers: Int = 1,
        beforeRead: @escaping @Sendable (ReadTurn) async -> Void = { _ in },
        duringRead: @escaping @Sendable (ReadTurn) -> Void = { _ in },
        _ body: (WatcherHarness) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory()
        let harness = WatcherHarness(root: scratch.path, configuration: configuration)
        defer { withExtendedLifetime(scratch) {} }
        let running = Task { [watcher = harness.watcher] in try await watcher.run() }
        let consuming = Task { await harness.consumeEvents(readers: readers, beforeRead: beforeRead, duringRead: duringRead) }
        do {
            try await body(harness)
        } catch {
            running.cancel()
            throw error
        }
        running.cancel()
        try await running.value
        await consuming.value
    }

    private func consumeEvents(readers: Int, beforeRead: @Sendable (ReadTurn) async -> Void, duringRead: @Sendable (ReadTurn) -> Void) async {
        var announcements = 0
        for await event in watcher.events {
            switch event {
            case .missing(let path):
                for reader in 0..<readers {
                    record(.missing, of: path, by: reader)
                }
            case .changed(let path, let check):
                for reader in 0..<readers {
                    await beforeRead(ReadTurn(path: path, announcement: announcements, reader: reader))
                    if let observation = await read(path, checkedBy: check, during: { duringRead(ReadTurn(path: path, announcement: announcements, reader: reader)) }) {
                        record(observation, of: path, by: reader)
                    }
                }
                announcements += 1
            case .changedWhileWriting(let path, _):
                // Read as a watch that publishes while writing reads it: as it is.
                for reader in 0..<readers {
                    if let observation = await read(path, checkedBy: nil, during: {}) {
                        record(observation, of: path, by: reader)
                    }
                }
            case .writing(let path, _):
                writingAnnouncements.withLock { $0[path, default: []].append(ContinuousClock.now) }
            }
        }
    }

    /// Reads `path` as the tracker does; `nil` when `check` refuses the read.
    private func read(_ path: String, checkedBy check: CompletenessCheck?, during: () -> Void) async -> Observation? {
        let checkedRead = check?.beginRead()
        during()
        let attempt = Result(catching: { () throws(FileReadError) in try FileSnapshot.read(atPath: path) })
        if case .success(let snapshot) = attempt {
            checkedRead?.end(with: snapshot)
        }
        switch attempt {
        case .success(.present(let bytes, _)):
            guard await checkedRead?.confirm() ?? true else {
                refusedReads.wrappingAdd(1, ordering: .relaxed)
                return nil
            }
            return .content(String(decoding: bytes.array, as: UTF8.self))
        case .success(.missing):
            return .unreadable("missing when read")
        case .failure(let error):
            return .unreadable("\(error)")
        }
    }

    private func record(_ observation: Observation, of path: String, by reader: Int) {
        observed.withLock { $0[RecordKey(path: path, reader: reader), default: []].append((observation, ContinuousClock.now)) }
    }

    /// The absolute path of `relative` inside the scratch directory.
    func path(_ relative: String) -> String {
        root + "/" + relative
    }

    /// How many reads were dropped because their ``CompletenessCheck`` refused them.
    var refusedReadCount: Int {
        refusedReads.load(ordering: .relaxed)
    }

    /// Everything `reader` saw of `path` so far, oldest first.
    func observations(of path: String, reader: Int = 0) -> [Observation] {
        observed.withLock { ($0[RecordKey(path: path, reader: reader)] ?? []).map(\.observation) }
    }

    /// When the watcher said that a writer holds `path` (`.writing`), oldest first.
    func writingAnnouncementTimes(of path: String) -> [ContinuousClock.Instant] {
        writingAnnouncements.withLock { $0[path] ?? [] }
    }

    /// When each of ``observations(of:reader:)`` was recorded.
    func observationTimes(of path: String, reader: Int = 0) -> [ContinuousClock.Instant] {
        observed.withLock { ($0[RecordKey(path: path, reader: reader)] ?? []).map(\.at) }
    }

    /// Watches `path` and waits for its first announcement, which must be `initial`.
    func watch(_ path: String, expecting initial: Observation) async throws {
        let before = observations(of: path).count
        try watcher.watch(path)
        let seen = await waitUntil { self.observations(of: path).count > before }
        #expect(seen, "no initial announcement for \(path)")
        #expect(observations(of: path).last == initial)
    }

    /// Creates the file `relative` (its directory must exist) holding `text`, watches it and
    /// waits for the announcement of that content. Returns the file's absolute path.
    @discardableResult
    func watchNewFile(_ relative: String, containing text: String) async throws -> String {
        let file = path(relative)
        try FileOperations.write(text, to: file)
        try await watch(file, expecting: .content(text))
        return file
    }

    /// Writes `text` to `file` in place (truncate + write) and expects the file to settle at it.
    func expectSaveSeen(_ text: String, in file: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try FileOperations.write(text, to: file)
        await expectSettled(file, at: .content(text), sourceLocation: sourceLocation)
    }

    /// Polls `condition` every few milliseconds until it holds or ``timeout`` passes — counting
    /// only time in which the polling task got to run. The watcher's and the consumer's tasks
    /// share the concurrency pool with it. The package's other tests no longer hold that pool's
    /// threads (their waits are `Task.sleep`s and readiness awaits, their blocking writers run on
    /// threads of their own); before, end-to-end and socket tests blocking in `usleep`, `poll` and
    /// `waitpid` held every thread for seconds — a wake-up 23 s late was measured. What remains is
    /// a machine so loaded that the task is not scheduled: that stops the watcher as much as the
    /// poll, so it is still not charged to the watcher.
    func waitUntil(_ condition: () -> Bool) async -> Bool {
        var waited = Duration.zero
        var last = ContinuousClock.now
        while waited < Self.timeout {
            if condition() {
                return true
            }
            try? await Task.sleep(for: .milliseconds(5))
            let now = ContinuousClock.now
            waited += min(now - last, Self.longestChargedPoll)
            last = now
        }
        return condition()
    }

    /// Waits until the last observation of `path` is `expected`, then waits out every settle
    /// delay once more and checks nothing changed it: the path *ends* at `expected`.
    func expectSettled(_ path: String, at expected: Observation, sourceLocation: SourceLocation = #_sourceLocation) async {
        let reached = await waitUntil { self.observations(of: path).last == expected }
        #expect(reached, "\(path) never reached \(expected); saw \(observations(of: path))", sourceLocation: sourceLocation)
        let configuration = watcher.configuration
        let quietPeriod = max(configuration.closeSettleDelay, configuration.modifySettleDelay, configuration.disappearanceSettleDelay)
        try? await Task.sleep(for: quietPeriod + .milliseconds(100))
        #expect(observations(of: path).last == expected, "\(path) moved on from \(expected): \(observations(of: path))", sourceLocation: sourceLocation)
    }
}
