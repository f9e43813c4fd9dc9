import Testing

@testable import ListSyncDaemon

@Suite("ConfigurationChanges")
struct ConfigurationChangesTests {
    private func load(_ toml: String) throws -> DaemonConfiguration {
        try parse(toml).configuration
    }

    @Test("watches are matched by name into added, removed, changed and unchanged")
    func classification() throws {
        let old = try self.load(
            """
            [[watch]]
            name = "kept"
            path = "/d/kept.csv"
            [[watch]]
            name = "gone"
            path = "/d/gone.csv"
            [[watch]]
            name = "moved"
            path = "/d/moved.csv"
            [[watch]]
            name = "rekeyed"
            path = "/d/rekeyed.csv"
            key = ["id"]
            """
        )
        let new = try self.load(
            """
            [[watch]]
            name = "fresh"
            path = "/d/fresh.json"
            [[watch]]
            name = "rekeyed"
            path = "/d/rekeyed.csv"
            key = ["id", "region"]
            ignore = "updated_at"
            [[watch]]
            name = "moved"
            path = "/e/moved.tsv"
            [[watch]]
            name = "kept"
            path = "/d/kept.csv"
            """
        )
        let changes = ConfigurationChanges(from: old, to: new)
        #expect(changes.added.map(\.name) == ["fresh"])
        #expect(changes.removed.map(\.name) == ["gone"])
        #expect(changes.changed.map(\.new.name) == ["rekeyed", "moved"])
        // csv to tsv also changes the delimiter in effect, comma to tab.
        #expect(changes.changed.map(\.fields) == [[.key, .ignore], [.path, .format, .delimiter]])
        // Logs name the fields by their configuration keys.
        #expect(changes.changed.map { WatchConfiguration.Field.configurationKeys($0.fields) } == ["key,ignore", "path,format,delimiter"])
        #expect(WatchConfiguration.Field.configurationKeys([.raggedRows, .sectionBy]) == "section_by,ragged_rows")
        #expect(changes.changed.map(\.old) == [old.watches[3], old.watches[2]])
        #expect(changes.unchanged.map(\.name) == ["kept"])
        #expect(changes.settings.isEmpty)
        #expect(!changes.isEmpty)
    }

    @Test("reloading the same text changes nothing")
    func identical() throws {
        let text = "allow_uids = [1]\n[[watch]]\nname = \"a\"\npath = \"a.csv\"\n"
        let changes = ConfigurationChanges(from: try self.load(text), to: try self.load(text))
        #expect(changes.isEmpty)
        #expect(changes.unchanged.map(\.name) == ["a"])
    }

    @Test("a timing change is a watcher setting, not a change of every watch")
    func timing() throws {
        let watches = "[[watch]]\nname = \"a\"\npath = \"/a.csv\"\n"
        let changes = ConfigurationChanges(
            from: try self.load(watches),
            to: try self.load("settle_after_close_ms = 7\n" + watches)
        )
        #expect(changes.settings == [.watcher])
        #expect(changes.unchanged.map(\.name) == ["a"])
        #expect(changes.changed.isEmpty)
    }

    @Test("daemon-wide settings are reported, and say whether a reload can apply them")
    func settings() throws {
        let changes = ConfigurationChanges(
            from: try self.load("watch = []"),
            to: try self.load("socket = \"/tmp/x.sock\"\nsocket_mode = \"0600\"\nallow_groups = [\"daemon\"]\nhistory_length = 3\nwatch = []")
        )
        #expect(changes.settings == [.socketPath, .socketMode, .allowedGroups, .historyLength])
        let needRestart: Set<DaemonConfiguration.Setting> = changes.settings.filter { !$0.appliesOnReload }
        #expect(needRestart == [.socketPath, .socketMode])
        #expect(changes.added.isEmpty && changes.removed.isEmpty && changes.changed.isEmpty)
    }
}
