import Testing

/// Usage errors exit as each family of commands says: 2 for the file commands
/// (diff(1)'s trouble), 1 for the commands that talk to the daemon (whose 2
/// means "daemon unreachable").
@Suite struct UsageErrorTests {
    @Test("a usage error of a daemon command exits 1", arguments: ["list", "subscribe", "snapshot", "mirror", "exec"])
    func daemonCommandUsageError(command: String) throws {
        let files = try ScratchFiles()
        let result = try files.listsync(command, "--no-such-option")
        #expect(result.status == 1)
        #expect(result.standardError.contains("Error:"))
    }

    @Test("a usage error of a file command exits 2", arguments: ["parse", "diff"])
    func fileCommandUsageError(command: String) throws {
        let files = try ScratchFiles()
        let result = try files.listsync(command, "--no-such-option")
        #expect(result.status == 2)
    }
}
