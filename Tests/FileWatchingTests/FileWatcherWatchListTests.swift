import Testing
@testable import FileWatching

extension FileWatcherTests.WatchList {
    @Test func watchesAddedAndRemovedWhileRunning() async throws {
        try await WatcherHarness.run { harness in
            try FileOperations.makeDirectory(harness.path("dropped"))
            let dropped = try await harness.watchNewFile("dropped/list.csv", containing: "id\n1\n")
            let kept = try await harness.watchNewFile("kept.csv", containing: "id\n1\n")

            try harness.watcher.unwatch(dropped)
            try FileOperations.write("id\n2\n", to: dropped)
            try FileOperations.write("id\n2\n", to: kept)

            // Once the kept file's save is through, the dropped one's has long been handled.
            await harness.expectSettled(kept, at: .content("id\n2\n"))
            #expect(harness.observations(of: dropped) == [.content("id\n1\n")])
        }
    }

    @Test func watchesOfOnePathAreCounted() async throws {
        try await WatcherHarness.run { harness in
            let file = try await harness.watchNewFile("list.csv", containing: "id\n1\n")
            // A second subscriber hears the current state too.
            try await harness.watch(file, expecting: .content("id\n1\n"))

            try harness.watcher.unwatch(file)
            try FileOperations.write("id\n2\n", to: file)

            await harness.expectSettled(file, at: .content("id\n2\n"))
        }
    }

    @Test func pathsAreNormalisedAndValidated() throws {
        let watcher = FileWatcher(logger: .init(label: "FileWatcherTests"))
        #expect(try watcher.watch("//srv/./data//list.csv/") == "/srv/data/list.csv")
        #expect(throws: FileWatcherError.invalidPath("data/list.csv", reason: "the path is not absolute")) {
            try watcher.watch("data/list.csv")
        }
        #expect(throws: FileWatcherError.invalidPath("/srv/../list.csv", reason: "the path has a '..' component")) {
            try watcher.watch("/srv/../list.csv")
        }
        #expect(throws: FileWatcherError.invalidPath("/", reason: "the path names no file")) {
            try watcher.watch("/")
        }
    }

    @Test func aWatcherRunsOnceAndRefusesPathsAfterwards() async throws {
        let watcher = FileWatcher(logger: .init(label: "FileWatcherTests"))
        let runs = [Task { try await watcher.run() }, Task { try await watcher.run() }]
        runs.forEach { $0.cancel() }
        var outcomes: [String] = []
        for run in runs {
            switch await run.result {
            case .success: outcomes.append("ran")
            case .failure(let error): outcomes.append("\(error)")
            }
        }
        #expect(outcomes.sorted() == ["ran", "\(FileWatcherError.alreadyRunning)"])
        #expect(throws: FileWatcherError.finished) { try watcher.watch("/tmp/x.csv") }
    }
}
