import Glibc
import ListFormats
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// Who may connect, seen from real clients running as another user (`setpriv`): supplementary
/// groups, revocation by a reload, and how a refusal reaches the client.
extension EndToEndTests.Lifecycle {
    /// A user id no account has, so only what the process carries can make it a member.
    static let strangerID = 61234

    /// A group this machine has (`adm`, `daemon`…) that `strangerID` can carry as a supplementary group.
    static func someGroup() throws -> (name: String, id: gid_t) {
        for name in ["adm", "daemon", "bin", "sys"] {
            if let id = try AccountDatabase.groupID(named: name) { return (name, id) }
        }
        throw TestFailure(description: "no usual group on this machine")
    }

    /// Starts `listsync ARGUMENTS --socket SOCKET` as `uid` with `groups` as its only
    /// supplementary groups (none when empty).
    static func listsync(as uid: Int, groups: [gid_t], _ arguments: [String], harness: DaemonHarness) throws -> DaemonProcess {
        let groupOption = groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map(String.init).joined(separator: ",")
        return try DaemonProcess(
            executable: "/usr/bin/setpriv",
            arguments: ["--reuid=\(uid)", "--regid=\(uid)", groupOption, try DaemonProcess.cliPath] + arguments + ["--socket", harness.socketPath],
            logPath: harness.path("client-\(UInt32.random(in: 0...UInt32.max)).log"))
    }

    /// A harness whose directory and socket other users can reach.
    static func openHarness(extra: String) throws -> DaemonHarness {
        let harness = try DaemonHarness()
        chmod(harness.directory.path, 0o755)
        try FileOperations.write(Lists.catalogue(0), to: harness.path("a.csv"))
        try harness.writeConfig(["name = \"a\"\npath = \"a.csv\"\nkey = [\"sku\"]"], extra: "socket_mode = \"0666\"\n" + extra)
        return harness
    }

    @Test(.enabled(if: geteuid() == 0, "running a client as another user (setpriv --reuid) needs root"))
    func aGroupCarriedOnlyAsASupplementaryGroupOfTheProcessIsAllowed() async throws {
        let group = try Self.someGroup()
        let harness = try Self.openHarness(extra: "allow_groups = [\"\(group.name)\"]")
        try await harness.startDaemon()

        let member = try Self.listsync(as: Self.strangerID, groups: [group.id], ["list"], harness: harness)
        #expect(try await member.exited(timeout: .seconds(30)) == 0, "\(member.log)")
        #expect(member.log.contains("a "), "\(member.log)")

        let stranger = try Self.listsync(as: Self.strangerID, groups: [], ["list"], harness: harness)
        #expect(try await stranger.exited(timeout: .seconds(30)) == 5, "\(stranger.log)")
        #expect(stranger.log.contains("not_permitted"), "\(stranger.log)")
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aGroupNameTheSystemDoesNotKnowIsAPositionedConfigurationError() async throws {
        let harness = try Self.openHarness(extra: "allow_groups = [\n  \"no-such-group-listsync\",\n]")
        let check = try DaemonProcess(
            executable: try DaemonProcess.binaryPath, arguments: ["--check-config", harness.configPath], logPath: harness.path("check.log"))
        #expect(try await check.exited() == 1)
        #expect(check.log.contains("listsyncd.toml:"), "\(check.log)")
        #expect(check.log.contains("no group named \"no-such-group-listsync\""), "\(check.log)")
    }

    @Test(.enabled(if: geteuid() == 0, "running a client as another user (setpriv --reuid) needs root"))
    func aReloadThatRevokesAccessClosesTheConnectionsOfUsersNoLongerAllowed() async throws {
        let group = try Self.someGroup()
        let harness = try Self.openHarness(extra: "allow_uids = [\(Self.strangerID)]\nallow_groups = [\"\(group.name)\"]")
        try await harness.startDaemon()
        let byUser = try Self.listsync(as: Self.strangerID, groups: [], ["subscribe", "a", "--format", "ndjson"], harness: harness)
        let byGroup = try Self.listsync(as: Self.strangerID + 1, groups: [group.id], ["subscribe", "a", "--format", "ndjson"], harness: harness)
        let owner = try await harness.subscribe("a")
        _ = try? await eventually("both clients print a snapshot", timeout: .seconds(30)) {
            byUser.log.contains("\"snapshot\"") && byGroup.log.contains("\"snapshot\"")
        }
        #expect(byUser.log.contains("\"snapshot\""), "\(byUser.log)")
        #expect(byGroup.log.contains("\"snapshot\""), "\(byGroup.log)")

        try harness.writeConfig(["name = \"a\"\npath = \"a.csv\"\nkey = [\"sku\"]"], extra: "socket_mode = \"0666\"\n")
        harness.daemon?.send(SIGHUP)
        try await harness.notification("RELOADING=1")
        try await harness.notification("READY=1")
        #expect(try await byUser.exited(timeout: .seconds(10)) == 5, "\(byUser.log)")
        #expect(byUser.log.contains("not_permitted"), "\(byUser.log)")
        #expect(try await byGroup.exited(timeout: .seconds(10)) == 5, "\(byGroup.log)")
        #expect(byGroup.log.contains("not_permitted"), "\(byGroup.log)")

        // The daemon's own user keeps its subscription and its changesets.
        try EndToEndTests.Subscribers.save(Lists.catalogue(1), to: harness.path("a.csv"))
        #expect(try await owner.receiveUntilMirroring(harness.path("a.csv"), options: ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])))
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test(.enabled(if: geteuid() == 0, "running a client as another user (setpriv --reuid) needs root"))
    func everyRefusedAttemptPrintsTheRefusalAndExits5() async throws {
        let harness = try Self.openHarness(extra: "")
        try await harness.startDaemon()
        for attempt in 0..<20 {
            let arguments = attempt % 2 == 0 ? ["list"] : ["snapshot", "a"]
            let client = try Self.listsync(as: Self.strangerID, groups: [], arguments, harness: harness)
            #expect(try await client.exited(timeout: .seconds(30)) == 5, "attempt \(attempt): \(client.log)")
            #expect(client.log.contains("not_permitted"), "attempt \(attempt): \(client.log)")
            #expect(!client.log.contains("closed"), "attempt \(attempt): \(client.log)")
        }
        #expect(try await harness.stopDaemon() == 0)
    }
}
