import Glibc
import Testing
@testable import FileWatching

/// The watcher against real files, one test per way of saving. Serialized: the tests measure
/// settle behaviour against wall-clock pauses and share the process's one inotify thread.
@Suite(.serialized)
struct FileWatcherTests {
    @Suite struct SaveStrategies {}
    @Suite struct Directories {}
    @Suite struct Recovery {}
    @Suite struct WatchList {}
}

extension FileWatcherTests.SaveStrategies {
    @Test func truncateAndWriteInPlaceIsReportedOnlyWhenComplete() async throws {
        try await WatcherHarness.run { harness in
            let file = try await harness.watchNewFile("list.csv", containing: "sku,name\n1,apple\n")
            let before = harness.observations(of: file).count

            // MODIFY (truncate), MODIFY, pause shorter than the modify settle delay, MODIFY, CLOSE_WRITE.
            let final = "sku,name\n1,apple\n2,pear\n"
            try await FileOperations.write(["sku,name\n1,ap", "ple\n2,pear\n"], to: file, pausing: .milliseconds(40))

            await harness.expectSettled(file, at: .content(final))
            let reported = harness.observations(of: file).dropFirst(before)
            #expect(reported.allSatisfy { $0 == .content(final) }, "partial content was announced: \(reported)")
        }
    }

    @Test func writeTempThenRenameOver() async throws {
        try await WatcherHarness.run { harness in
            let file = try await harness.watchNewFile("list.json", containing: "[1]")

            try FileOperations.write("[1,2]", to: harness.path(".list.json.tmp"))
            try FileOperations.rename(harness.path(".list.json.tmp"), to: file)

            await harness.expectSettled(file, at: .content("[1,2]"))
        }
    }

    @Test func sedInPlace() async throws {
        try await WatcherHarness.run { harness in
            let file = try await harness.watchNewFile("list.ndjson", containing: "{\"id\":1,\"v\":\"old\"}\n")

            try await FileOperations.runToEnd("/bin/sed", ["-i", "s/old/new/", file])

            await harness.expectSettled(file, at: .content("{\"id\":1,\"v\":\"new\"}\n"))
        }
    }

    @Test func vimBackupDanceEndsChangedAndNeverMissing() async throws {
        try await WatcherHarness.run { harness in
            let backup = harness.path("list.csv~")
            let file = try await harness.watchNewFile("list.csv", containing: "id\n1\n")
            let before = harness.observations(of: file).count

            // The target is missing between the rename and the new file, like vim with backupcopy=no.
            try FileOperations.rename(file, to: backup)
            try await Task.sleep(for: .milliseconds(5))
            try FileOperations.write(["id\n1\n", "2\n"], to: file, flags: O_WRONLY | O_CREAT | O_EXCL)
            try FileOperations.remove(backup)

            await harness.expectSettled(file, at: .content("id\n1\n2\n"))
            #expect(!harness.observations(of: file).dropFirst(before).contains(.missing))
        }
    }

    @Test func copyOver() async throws {
        try await WatcherHarness.run { harness in
            try FileOperations.write("id\n7\n8\n", to: harness.path("source.csv"))
            let file = try await harness.watchNewFile("list.csv", containing: "id\n1\n")

            try await FileOperations.runToEnd("/bin/cp", [harness.path("source.csv"), file])

            await harness.expectSettled(file, at: .content("id\n7\n8\n"))
        }
    }

    @Test func deleteThenRecreate() async throws {
        try await WatcherHarness.run { harness in
            let file = try await harness.watchNewFile("list.csv", containing: "id\n1\n")

            try FileOperations.remove(file)
            await harness.expectSettled(file, at: .missing)

            try await harness.expectSaveSeen("id\n2\n", in: file)
        }
    }

    @Test func deleteAndRecreateAtOnceIsNotAnnouncedMissing() async throws {
        try await WatcherHarness.run { harness in
            let file = try await harness.watchNewFile("list.csv", containing: "id\n1\n")
            let before = harness.observations(of: file).count

            try FileOperations.remove(file)
            try FileOperations.write("id\n3\n", to: file)

            await harness.expectSettled(file, at: .content("id\n3\n"))
            #expect(!harness.observations(of: file).dropFirst(before).contains(.missing))
        }
    }
}
