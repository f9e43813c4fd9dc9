import Glibc
import Testing
@testable import FileWatching

extension FileWatcherTests {
    /// Only a writer — an open followed by `IN_MODIFY`, not yet by `IN_CLOSE_WRITE` — holds a file
    /// back; a reader that keeps it open (`tail -f`) never does.
    @Suite struct Writers {}
}

extension FileWatcherTests.Writers {
    /// Settle delays of the harness, and a writer bound far longer than any of the tests' waits:
    /// what these tests see never comes from it.
    private static var configuration: FileWatcher.Configuration {
        var configuration = WatcherHarness.fastConfiguration
        configuration.maximumWaitForWriter = .seconds(30)
        return configuration
    }

    /// A save in place while `tail -f` holds the file: announced within the settle delays, not
    /// at the writer bound (before, every open counted as a writer: 30 s here, 5 s by default).
    @Test func aReaderHoldingTheFileDoesNotHoldASaveBack() async throws {
        try await WatcherHarness.run(configuration: Self.configuration) { harness in
            let file = try await harness.watchNewFile("list.csv", containing: "id\n1\n")
            let reader = DescriptorHolder()
            reader.open(file)
            defer { reader.close() }
            // Long enough for the inotify thread to take the reader's IN_OPEN: the writer's,
            // identical, would merge into it while both wait in the kernel's queue.
            try await Task.sleep(for: .milliseconds(100))
            let started = ContinuousClock.now
            try FileOperations.write("id\n1\n2\n", to: file)
            let seen = await harness.waitUntil { harness.observations(of: file).last == .content("id\n1\n2\n") }
            let waited = ContinuousClock.now - started
            #expect(seen, "never announced while a reader holds the file: \(harness.observations(of: file))")
            #expect(waited < .seconds(2), "announced after \(waited)")
            #expect(harness.writingAnnouncementTimes(of: file).isEmpty)
        }
    }

    /// A writer that wrote half and keeps the file open, longer than every settle delay and the
    /// settle maximum: announced as being written — once — and never as a version until it
    /// closes the file.
    @Test func aWriterHoldingTheFileIsAnnouncedAsWritingUntilItCloses() async throws {
        try await WatcherHarness.run(configuration: Self.configuration) { harness in
            let file = try await harness.watchNewFile("list.csv", containing: "id\n1\n")
            let writer = DescriptorHolder()
            writer.open(file, flags: O_WRONLY | O_TRUNC)
            let started = ContinuousClock.now
            writer.write("id\n1\n2\n")
            let announced = await harness.waitUntil { !harness.writingAnnouncementTimes(of: file).isEmpty }
            #expect(announced, "not announced as being written")
            if let first = harness.writingAnnouncementTimes(of: file).first {
                // The modify settle delay at least, the settle maximum and a margin at most.
                #expect(first - started >= .milliseconds(140) && first - started < .seconds(2), "announced writing after \(first - started)")
            }
            try await Task.sleep(for: .milliseconds(1500))
            #expect(harness.observations(of: file) == [.content("id\n1\n")], "a half-written file was announced as a version")
            writer.write("3\n")
            writer.close()
            await harness.expectSettled(file, at: .content("id\n1\n2\n3\n"))
            #expect(harness.observations(of: file) == [.content("id\n1\n"), .content("id\n1\n2\n3\n")])
            #expect(harness.writingAnnouncementTimes(of: file).count == 1)
        }
    }

    /// A reader and a writer at once: the writer holds the file back, the reader does not, and
    /// once the writer closed, a save in place is announced within the settle delays although the
    /// reader still has the file open.
    @Test func aReaderAndAWriterAtOnce() async throws {
        try await WatcherHarness.run(configuration: Self.configuration) { harness in
            let file = try await harness.watchNewFile("list.csv", containing: "id\n1\n")
            let reader = DescriptorHolder()
            reader.open(file)
            defer { reader.close() }
            let writer = DescriptorHolder()
            writer.open(file, flags: O_WRONLY | O_APPEND)
            writer.write("2\n")
            try await Task.sleep(for: .milliseconds(1200))
            #expect(harness.observations(of: file) == [.content("id\n1\n")], "announced while the writer held it")
            #expect(harness.writingAnnouncementTimes(of: file).count == 1)
            writer.write("3\n")
            writer.close()
            await harness.expectSettled(file, at: .content("id\n1\n2\n3\n"))

            let started = ContinuousClock.now
            try FileOperations.write("id\n4\n", to: file)
            let seen = await harness.waitUntil { harness.observations(of: file).last == .content("id\n4\n") }
            #expect(seen && ContinuousClock.now - started < .seconds(2), "the save in place after the writer left: \(harness.observations(of: file))")
        }
    }

    /// A limit, pinned here: inotify does not say which descriptor an `IN_CLOSE_WRITE` closed, so
    /// a second program that opens the file for writing and closes it without writing
    /// (`: >> file`) ends the hold of a writer that still has it open, and what that writer wrote
    /// so far is announced as a version. Counting opens against closes cannot tell either:
    /// `IN_OPEN` does not give the mode, so a reader still holding the file (`tail -f`) would
    /// look like a writer and hold every save back until the writer bound. The man page
    /// (listsyncd.toml(5), `settle_max_ms`) states the limit; change both together.
    @Test func aSecondProgramClosingTheFileForWritingEndsTheHoldOfTheFirst() async throws {
        try await WatcherHarness.run(configuration: Self.configuration) { harness in
            let (file, writer) = try await Self.writerHolding(in: harness)
            defer { writer.close() }
            #expect(harness.observations(of: file) == [.content("id\n1\n")], "announced while the writer held it")

            // `: >> file` while the writer still holds the file: its close ends the hold.
            let other = DescriptorHolder()
            other.open(file, flags: O_WRONLY | O_APPEND)
            other.close()
            let seen = await harness.waitUntil { harness.observations(of: file).last == .content("id\n1\n2\n") }
            #expect(seen, "the hold outlived the other program's close: \(harness.observations(of: file))")

            try await Self.expectHeldBackUntilClosed(writer, file: file, in: harness)
        }
    }

    /// After lost events, whether the writer that held a file still does is not known: the file
    /// is announced once its `stat` stayed the same for the writer bound — not sooner, for a
    /// writer may be pausing — and a writer seen again (`IN_MODIFY`) holds it back until it
    /// closes it.
    @Test func afterLostEventsAFileIsAnnouncedOnceItsStatStaysTheSameForTheWriterBound() async throws {
        var configuration = Self.configuration
        configuration.maximumWaitForWriter = .milliseconds(1500)
        try await WatcherHarness.run(configuration: configuration) { harness in
            let (file, writer) = try await Self.writerHolding(in: harness)
            defer { writer.close() }

            let lost = ContinuousClock.now
            #expect(harness.watcher.ingest(.overflow))
            let seen = await harness.waitUntil { harness.observations(of: file).last == .content("id\n1\n2\n") }
            #expect(seen, "never announced after the events were lost: \(harness.observations(of: file))")
            #expect(ContinuousClock.now - lost >= .milliseconds(1400), "announced \(ContinuousClock.now - lost) after the events were lost")

            try await Self.expectHeldBackUntilClosed(writer, file: file, in: harness)
        }
    }

    /// Watches a new `list.csv` holding `id\n1\n`, opens it for appending, writes `2\n` and waits
    /// until the file is announced as being written. The writer still holds the file: close it.
    private static func writerHolding(in harness: WatcherHarness) async throws -> (file: String, writer: DescriptorHolder) {
        let file = try await harness.watchNewFile("list.csv", containing: "id\n1\n")
        let writer = DescriptorHolder()
        writer.open(file, flags: O_WRONLY | O_APPEND)
        writer.write("2\n")
        let announced = await harness.waitUntil { !harness.writingAnnouncementTimes(of: file).isEmpty }
        #expect(announced, "not announced as being written")
        return (file, writer)
    }

    /// The writer of ``writerHolding(in:)``, once `id\n1\n2\n` was announced, writes `3\n`:
    /// seen as a writer, it holds the file back until it closes it, and the file then settles at
    /// all it wrote.
    private static func expectHeldBackUntilClosed(_ writer: DescriptorHolder, file: String, in harness: WatcherHarness) async throws {
        writer.write("3\n")
        try await Task.sleep(for: .milliseconds(1000))
        #expect(harness.observations(of: file).last == .content("id\n1\n2\n"), "announced while the writer held it")
        writer.close()
        await harness.expectSettled(file, at: .content("id\n1\n2\n3\n"))
    }
}
