import Glibc
import Logging
import Synchronization
import Testing
@testable import FileWatching

extension FileWatcherTests.Recovery {
    /// `IN_Q_OVERFLOW` cannot be provoked reliably here (the inotify thread drains the kernel queue
    /// faster than a test can fill it), so the overflow enters where the inotify thread hands
    /// events over — the same path a real one takes.
    @Test func queueOverflowReannouncesEveryFile() async throws {
        try await WatcherHarness.run { harness in
            try FileOperations.makeDirectory(harness.path("second"))
            let first = try await harness.watchNewFile("first.csv", containing: "id\n1\n")
            let second = try await harness.watchNewFile("second/list.csv", containing: "id\n2\n")

            #expect(harness.watcher.ingest(.overflow))

            let reannounced = await harness.waitUntil {
                harness.observations(of: first).count == 2 && harness.observations(of: second).count == 2
            }
            #expect(reannounced, "after an overflow: \(harness.observations(of: first)), \(harness.observations(of: second))")
            #expect(harness.observations(of: first).last == .content("id\n1\n"))
            #expect(harness.observations(of: second).last == .content("id\n2\n"))
        }
    }

    /// A write through a hard link in a directory nobody watches changes the watched file, but
    /// inotify reports it only in that directory: only the reconciliation's `stat` notices.
    @Test func reconciliationCatchesAChangeInotifyCannotSee() async throws {
        var configuration = WatcherHarness.fastConfiguration
        configuration.reconciliationInterval = .milliseconds(200)
        try await WatcherHarness.run(configuration: configuration) { harness in
            try FileOperations.makeDirectory(harness.path("watched"))
            try FileOperations.makeDirectory(harness.path("elsewhere"))
            let target = harness.path("elsewhere/list.csv")
            let link = harness.path("watched/list.csv")
            try FileOperations.write("id\n1\n", to: target)
            try FileOperations.hardLink(target, at: link)
            try await harness.watch(link, expecting: .content("id\n1\n"))

            try FileOperations.write(["id\n1\n2\n"], to: target, flags: O_WRONLY | O_TRUNC)

            await harness.expectSettled(link, at: .content("id\n1\n2\n"))
        }
    }

    @Test func aFileMissingAtStartIsAnnouncedWhenCreated() async throws {
        try await WatcherHarness.run { harness in
            let file = harness.path("later.csv")
            try await harness.watch(file, expecting: .missing)

            try FileOperations.write("id\n1\n", to: file)

            await harness.expectSettled(file, at: .content("id\n1\n"))
        }
    }
}

extension FileWatcherTests.Recovery {
    /// Each overflow a watcher takes is reported to its owner (the daemon counts them in
    /// `listsync_inotify_overflows_total`); ordinary events are not.
    @Test func anOverflowIsReportedToTheWatchersOwner() {
        let overflows = Atomic(0)
        let watcher = FileWatcher(logger: Logger(label: "test"), onQueueOverflow: { overflows.add(1, ordering: .relaxed) })
        #expect(watcher.ingest(.overflow))
        #expect(watcher.ingest(InotifyEvent(descriptor: .none, mask: .modify, name: "x")))
        #expect(watcher.ingest(.overflow))
        #expect(overflows.load(ordering: .relaxed) == 2)
    }
}
