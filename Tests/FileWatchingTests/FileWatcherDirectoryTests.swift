import Testing
@testable import FileWatching

/// The reconciliation interval of ``WatcherHarness/fastConfiguration`` is a minute, so everything
/// here is noticed through inotify events, not by polling.
extension FileWatcherTests.Directories {
    @Test func parentDirectoryRemovedAndRecreated() async throws {
        try await WatcherHarness.run { harness in
            let directory = harness.path("data")
            try FileOperations.makeDirectory(directory)
            let file = try await harness.watchNewFile("data/list.csv", containing: "id\n1\n")

            try FileOperations.remove(file)
            try FileOperations.removeDirectory(directory)
            await harness.expectSettled(file, at: .missing)

            try FileOperations.makeDirectory(directory)
            try await harness.expectSaveSeen("id\n2\n", in: file)

            // The new directory is watched too: a later save is seen.
            try await harness.expectSaveSeen("id\n3\n", in: file)
        }
    }

    @Test func parentDirectoryRenamedAwayAndReplacedByRename() async throws {
        try await WatcherHarness.run { harness in
            let directory = harness.path("data")
            try FileOperations.makeDirectory(directory)
            let file = try await harness.watchNewFile("data/list.csv", containing: "id\n1\n")

            // The watch follows the moved directory (IN_MOVE_SELF); the path must not.
            try FileOperations.rename(directory, to: harness.path("data.old"))
            await harness.expectSettled(file, at: .missing)
            try FileOperations.write("id\n9\n", to: harness.path("data.old/list.csv"))

            try FileOperations.makeDirectory(harness.path("data.new"))
            try FileOperations.write("id\n2\n", to: harness.path("data.new/list.csv"))
            try FileOperations.rename(harness.path("data.new"), to: directory)
            await harness.expectSettled(file, at: .content("id\n2\n"))

            try await harness.expectSaveSeen("id\n3\n", in: file)
        }
    }

    @Test func missingAncestorsAppearingLater() async throws {
        try await WatcherHarness.run { harness in
            let file = harness.path("a/b/c/list.csv")
            try await harness.watch(file, expecting: .missing)

            try FileOperations.makeDirectory(harness.path("a"))
            try FileOperations.makeDirectory(harness.path("a/b"))
            try FileOperations.makeDirectory(harness.path("a/b/c"))
            try FileOperations.write("id\n1\n", to: file)

            await harness.expectSettled(file, at: .content("id\n1\n"))
        }
    }

    @Test func twoFilesInOneDirectoryAreRoutedByName() async throws {
        try await WatcherHarness.run { harness in
            let first = try await harness.watchNewFile("first.csv", containing: "id\n1\n")
            let second = try await harness.watchNewFile("second.csv", containing: "id\n2\n")
            let secondBefore = harness.observations(of: second)

            try FileOperations.write("id\n10\n", to: first)

            await harness.expectSettled(first, at: .content("id\n10\n"))
            #expect(harness.observations(of: second) == secondBefore)
        }
    }
}
