import Testing

/// Usage errors exit as each family of commands says: 2 for the file commands
/// (diff(1)'s trouble), 1 for everything else — the commands that talk to the
/// daemon (whose 2 means "daemon unreachable"), the root and a mistyped subcommand.
@Suite struct UsageErrorTests {
    @Test(
        "a usage error of a daemon command exits 1",
        arguments: [
            ["list"], ["subscribe"], ["snapshot"], ["mirror"], ["exec"], ["sink"], ["sink", "sqlite"], ["sink", "postgres"],
        ])
    func daemonCommandUsageError(command: [String]) async throws {
        let files = try ScratchFiles()
        let result = try await ListSyncProcess.execute(command + ["--no-such-option"], in: files.directory)
        #expect(result.status == 1)
        #expect(result.standardError.contains("Error:"))
    }

    @Test(
        "a --from or --server that is not a NATS URL exits 1 naming it",
        arguments: [
            ["mirror", "w", "--from", "nats://127.0.0.1:4222,htp://bad", "--output", "out.csv"],
            ["snapshot", "w", "--from", "htp://bad"],
            ["subscribe", "w", "--from", "htp://bad"],
            ["sink", "nats", "w", "--server", "htp://bad", "--socket", "none.sock"],
        ])
    func notANATSURL(arguments: [String]) async throws {
        let files = try ScratchFiles()
        let result = try await ListSyncProcess.execute(arguments, in: files.directory)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("htp://bad: not a NATS server URL"), "\(result.standardError)")
    }

    @Test("a missing argument of a daemon command exits 1", arguments: ["subscribe", "snapshot", "mirror", "exec"])
    func daemonCommandMissingArgument(command: String) async throws {
        let files = try ScratchFiles()
        let result = try await files.runListsync(command)
        #expect(result.status == 1, "\(result.standardError)")
    }

    @Test("a mistyped subcommand or a bad root option exits 1", arguments: [["subscrib", "x"], ["lst"], ["--no-such-option"]])
    func rootUsageError(arguments: [String]) async throws {
        let files = try ScratchFiles()
        let result = try await ListSyncProcess.execute(arguments, in: files.directory)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("Error:"))
    }

    @Test("a usage error of a file command exits 2", arguments: ["parse", "diff"])
    func fileCommandUsageError(command: String) async throws {
        let files = try ScratchFiles()
        let result = try await files.runListsync(command, "--no-such-option")
        #expect(result.status == 2)
    }
}
