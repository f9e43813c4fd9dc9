import Testing
@testable import ListSyncDaemon

/// `sync_before_publish`: a top-level boolean, `true` by default; a change applies only at a restart.
@Suite struct SyncBeforePublishParsingTests {
    @Test func isABooleanTrueByDefaultAndAppliesAtARestart() throws {
        let byDefault = try parse("[[watch]]\nname = \"a\"\npath = \"/d/a.csv\"\n").configuration
        #expect(byDefault.syncBeforePublish)
        let optedIn = try parse("sync_before_publish = false\n[[watch]]\nname = \"a\"\npath = \"/d/a.csv\"\n").configuration
        #expect(!optedIn.syncBeforePublish)
        #expect(ConfigurationChanges(from: byDefault, to: optedIn).settings == [.syncBeforePublish])
        #expect(!DaemonConfiguration.Setting.syncBeforePublish.appliesOnReload)
        #expect(optedIn.inForce(replacing: byDefault).syncBeforePublish)
        let found = problems(of: "socket = \"/run/s.sock\"\nsync_before_publish = \"after_write\"\n")
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.description.contains("sync_before_publish") == true, "\(found)")
        #expect(found.first?.location?.line == 2, "\(found)")
    }
}
