@testable import FileWatching
import Testing

@testable import ListSyncDaemon

/// The catalogue of configurations that load, with the values they must produce.
@Suite("DaemonConfiguration parsing")
struct DaemonConfigurationParsingTests {
    @Test("the example from the issue yields exactly its values")
    func issueExample() throws {
        // The id this machine's group database gives `daemon` (1 on Debian, not everywhere).
        let daemonGroupID = try #require(try AccountDatabase.groupID(named: "daemon"))
        let loaded = try parse(
            """
            socket = "/run/listsyncd/listsyncd.sock"   # default; $XDG_RUNTIME_DIR/listsyncd.sock when not root
            state_directory = "/var/lib/listsyncd"    # used by later work; create it if missing
            allow_uids = [1000]                       # peer-credential allowlist
            allow_groups = ["daemon"]
            socket_mode = "0660"

            [[watch]]
            name = "products"                # what clients subscribe to
            path = "/srv/data/products.csv"
            format = "csv"                   # csv | tsv | json | ndjson; default from the extension
            key = ["sku"]                    # optional; composite allowed
            section_by = "category"          # optional
            ignore = ["updated_at"]          # optional
            """
        )
        #expect(loaded.warnings.isEmpty)
        #expect(
            loaded.configuration
                == DaemonConfiguration(
                    socketPath: "/run/listsyncd/listsyncd.sock",
                    stateDirectory: "/var/lib/listsyncd",
                    socketMode: 0o660,
                    allowedUserIDs: [1000],
                    allowedGroups: [.name("daemon", id: daemonGroupID)],
                    watches: [
                        WatchConfiguration(
                            name: "products",
                            path: "/srv/data/products.csv",
                            format: .csv,
                            key: ["sku"],
                            sectionBy: "category",
                            ignore: ["updated_at"]
                        )
                    ]
                )
        )
    }

    @Test("defaults for a user: socket in XDG_RUNTIME_DIR, state under HOME, standard tunables")
    func userDefaults() throws {
        let configuration = try parse("[[watch]]\nname = \"a\"\npath = \"/d/a.csv\"\n").configuration
        #expect(configuration.socketPath == "/run/user/1000/listsyncd.sock")
        #expect(configuration.stateDirectory == "/home/ada/.local/state/listsyncd")
        #expect(configuration.socketMode == 0o660)
        #expect(configuration.allowedUserIDs.isEmpty && configuration.allowedGroups.isEmpty)
        #expect(configuration.watcher == FileWatcher.Configuration())
        #expect(configuration.heartbeatInterval == .seconds(15))
        #expect(configuration.historyLength == 1024)
        #expect(configuration.clientBufferBudget == 256 << 20)
        #expect(configuration.unfinishedLineTimeout == .seconds(10))
        #expect(configuration.watches.map(\.key) == [[]])
    }

    @Test(
        "default socket and state directory by identity and environment",
        arguments: [
            (rootEnvironment, "/run/listsyncd/listsyncd.sock", "/var/lib/listsyncd"),
            (
                ProcessEnvironment(
                    variables: ["XDG_RUNTIME_DIR": "/run/user/7/", "XDG_STATE_HOME": "/st"],
                    userID: 7,
                    processID: 2,
                    workingDirectory: "/"
                ),
                "/run/user/7/listsyncd.sock", "/st/listsyncd"
            ),
            // The system service's own user: no XDG_RUNTIME_DIR, StateDirectory= sets STATE_DIRECTORY.
            (
                ProcessEnvironment(
                    variables: ["STATE_DIRECTORY": "/var/lib/listsyncd:/var/lib/other"],
                    userID: 990,
                    processID: 2,
                    workingDirectory: "/"
                ),
                "/run/listsyncd/listsyncd.sock", "/var/lib/listsyncd"
            ),
            // Relative XDG values are ignored, as the XDG specification requires.
            (
                ProcessEnvironment(
                    variables: ["XDG_RUNTIME_DIR": "run", "XDG_STATE_HOME": "state", "HOME": "/h"],
                    userID: 7,
                    processID: 2,
                    workingDirectory: "/"
                ),
                "/run/listsyncd/listsyncd.sock", "/h/.local/state/listsyncd"
            ),
        ]
    )
    func pathDefaults(environment: ProcessEnvironment, socket: String, state: String) throws {
        let configuration = try parse("watch = []", environment: environment).configuration
        #expect(configuration.socketPath == socket)
        #expect(configuration.stateDirectory == state)
    }

    @Test(
        "the format follows the extension unless given",
        arguments: [
            ("a.csv", nil, WatchConfiguration.Format.csv),
            ("a.tsv", nil, .tsv),
            ("a.json", nil, .json),
            ("a.ndjson", nil, .ndjson),
            ("a.jsonl", nil, .ndjson),
            ("A.CSV", nil, .csv),
            ("a.txt", "tsv", .tsv),
            ("a.csv", "JSON", .json),
            ("noextension", "ndjson", .ndjson),
        ] as [(String, String?, WatchConfiguration.Format)]
    )
    func formats(path: String, format: String?, expected: WatchConfiguration.Format) throws {
        let formatLine = format.map { "format = \"\($0)\"" } ?? ""
        let configuration = try parse("[[watch]]\nname = \"w\"\npath = \"\(path)\"\n\(formatLine)\n").configuration
        #expect(configuration.watches.map(\.format) == [expected])
    }

    @Test("relative paths resolve against the configuration file's directory")
    func relativePaths() throws {
        let configuration = try parse(
            """
            socket = "run/../sockets/./l.sock"
            state_directory = "state"
            [[watch]]
            name = "a"
            path = "data/../lists/a.csv"
            [[watch]]
            name = "b"
            path = "../../srv//b.json"
            """
        ).configuration
        #expect(configuration.socketPath == "/etc/listsyncd/sockets/l.sock")
        #expect(configuration.stateDirectory == "/etc/listsyncd/state")
        #expect(configuration.watches.map(\.path) == ["/etc/listsyncd/lists/a.csv", "/srv/b.json"])
    }

    @Test("a relative configuration file is anchored at the working directory")
    func relativeConfigurationFile() throws {
        let loaded = try DaemonConfiguration.parse(
            toml: "[[watch]]\nname = \"a\"\npath = \"a.csv\"",
            file: "examples/listsyncd.toml",
            environment: userEnvironment
        )
        #expect(loaded.configuration.watches.map(\.path) == ["/home/ada/examples/a.csv"])
    }

    @Test("key and ignore take one column or several; groups take names and ids")
    func lists() throws {
        let daemonGroupID = try #require(try AccountDatabase.groupID(named: "daemon"))
        let configuration = try parse(
            """
            allow_uids = [0, 1000, 4294967294]
            allow_groups = ["daemon", 1001]
            [[watch]]
            name = "one"
            path = "/d/one.csv"
            key = "sku"
            ignore = "updated_at"
            [[watch]]
            name = "two"
            path = "/d/two.csv"
            key = ["region", "sku"]
            ignore = ["a", "b"]
            """
        ).configuration
        #expect(configuration.allowedUserIDs == [0, 1000, 4_294_967_294])
        #expect(configuration.allowedGroups == [.name("daemon", id: daemonGroupID), .id(1001)])
        #expect(configuration.watches.map(\.key) == [["sku"], ["region", "sku"]])
        #expect(configuration.watches.map(\.ignore) == [["updated_at"], ["a", "b"]])
    }

    @Test("socket_mode accepts three octal digits with an optional leading zero", arguments: [
        ("0660", 0o660), ("660", 0o660), ("0600", 0o600), ("0777", 0o777), ("000", 0),
    ] as [(String, UInt32)])
    func socketModes(text: String, mode: UInt32) throws {
        let configuration = try parse("socket_mode = \"\(text)\"\nwatch = []").configuration
        #expect(configuration.socketMode == mode)
    }

    @Test("tunables fill the watcher's configuration and the server's settings")
    func tunables() throws {
        let configuration = try parse(
            """
            settle_after_close_ms = 5
            settle_after_modify_ms = 0
            settle_after_disappearance_ms = 70
            reconcile_interval_ms = 60000
            heartbeat_interval_ms = 1000
            history_length = 16
            client_buffer_budget_mib = 64
            partial_line_timeout_ms = 2500
            watch = []
            """
        ).configuration
        var watcher = FileWatcher.Configuration()
        watcher.closeSettleDelay = .milliseconds(5)
        watcher.modifySettleDelay = .zero
        watcher.disappearanceSettleDelay = .milliseconds(70)
        watcher.reconciliationInterval = .seconds(60)
        #expect(configuration.watcher == watcher)
        #expect(configuration.heartbeatInterval == .seconds(1))
        #expect(configuration.historyLength == 16)
        #expect(configuration.clientBufferBudget == 64 << 20)
        #expect(configuration.unfinishedLineTimeout == .milliseconds(2500))
    }

    @Test("the settling bounds fill the watcher's configuration")
    func settlingBounds() throws {
        let configuration = try parse("settle_max_ms = 250\nsettle_while_writing_max_ms = 0\nwatch = []").configuration
        var watcher = FileWatcher.Configuration()
        watcher.maximumSettleDelay = .milliseconds(250)
        watcher.maximumWaitForWriter = .zero
        #expect(configuration.watcher == watcher)
        #expect(FileWatcher.Configuration().maximumSettleDelay == .seconds(1))
        #expect(FileWatcher.Configuration().maximumWaitForWriter == .seconds(5))
    }

    @Test("an absent tunable keeps the watcher's default")
    func partialTunables() throws {
        let configuration = try parse("settle_after_modify_ms = 900\nwatch = []").configuration
        var watcher = FileWatcher.Configuration()
        watcher.modifySettleDelay = .milliseconds(900)
        #expect(configuration.watcher == watcher)
    }

    @Test("watches may be written as an array of inline tables")
    func inlineWatches() throws {
        let configuration = try parse(
            """
            watch = [
                { name = "a", path = "/d/a.csv", key = ["id"] },
                { name = "b", path = "/d/b.ndjson" },
            ]
            """
        ).configuration
        #expect(configuration.watches.map(\.name) == ["a", "b"])
        #expect(configuration.watches.map(\.format) == [.csv, .ndjson])
    }

    @Test("unknown keys and tables are errors with their positions and the key they most likely meant")
    func unknownKeys() throws {
        let found = problems(
            of: """
                socket_mod = "0600"
                colour = "blue"

                [[watch]]
                name = "a"
                path = "/d/a.csv"
                  keys = ["id"]
                section-by = "c"
                fromat = "csv"

                [server]
                port = 1
                """
        )
        #expect(found.map(kind) == ["unknownKey", "unknownKey", "unknownKey", "unknownKey", "unknownKey", "unknownKey"])
        #expect(found.map(\.description) == [
            "/etc/listsyncd/listsyncd.toml:1:1: error: unknown key \"socket_mod\" at the top level; did you mean \"socket_mode\"?",
            "/etc/listsyncd/listsyncd.toml:2:1: error: unknown key \"colour\" at the top level",
            "/etc/listsyncd/listsyncd.toml:7:3: error: unknown key \"keys\" in [[watch]]; did you mean \"key\"?",
            "/etc/listsyncd/listsyncd.toml:8:1: error: unknown key \"section-by\" in [[watch]]; did you mean \"section_by\"?",
            "/etc/listsyncd/listsyncd.toml:9:1: error: unknown key \"fromat\" in [[watch]]; did you mean \"format\"?",
            "/etc/listsyncd/listsyncd.toml:11:1: error: unknown key \"server\" at the top level",
        ])
    }

    @Test(
        "a suggestion is the closest known key within a few edits, or none",
        arguments: [
            ("keys", "key"), ("Key", "key"), ("igonre", "ignore"), ("sectionby", "section_by"), ("histroy_length", "history_length"),
            ("heartbeat_interval", "heartbeat_interval_ms"), ("colour", nil), ("k", nil), ("watches", "watch"),
        ] as [(String, String?)])
    func suggestions(typed: String, meant: String?) {
        let known = ConfigurationReader.watchKeys.union(ConfigurationReader.topLevelKeys)
        #expect(KeySuggestion.closest(to: typed, among: known) == meant)
    }

    @Test("delimiter and ragged_rows read a CSV as listsync parse --delimiter and --ragged-rows do")
    func csvReadOptions() throws {
        let watches = try parse(
            """
            [[watch]]
            name = "a"
            path = "/d/a.csv"
            delimiter = "semicolon"
            ragged_rows = "pad"
            [[watch]]
            name = "b"
            path = "/d/b.tsv"
            ragged_rows = "truncate"
            [[watch]]
            name = "c"
            path = "/d/c.csv"
            format = "tsv"
            delimiter = "pipe"
            [[watch]]
            name = "d"
            path = "/d/d.json"
            """
        ).configuration.watches
        #expect(watches.map(\.delimiter) == [.semicolon, .tab, .pipe, nil])
        #expect(watches.map(\.raggedRows) == [.pad, .truncate, .error, .error])
        #expect(watches.map(\.readOptions.format) == [.csv(delimiter: .semicolon), .csv(delimiter: .tab), .csv(delimiter: .pipe), .json])
        #expect(watches.map(\.readOptions.raggedRows) == [.pad, .truncate, .error, .error])
        // The character itself, as every CSV tool takes it, is the same as its name.
        let characters = try parse(
            """
            [[watch]]
            name = "a"
            path = "/d/a.csv"
            delimiter = ";"
            [[watch]]
            name = "b"
            path = "/d/b.csv"
            delimiter = "\\t"
            [[watch]]
            name = "c"
            path = "/d/c.csv"
            delimiter = '\\t'
            [[watch]]
            name = "d"
            path = "/d/d.csv"
            delimiter = "|"
            [[watch]]
            name = "e"
            path = "/d/e.tsv"
            delimiter = ","
            """
        ).configuration.watches
        #expect(characters.map(\.delimiter) == [.semicolon, .tab, .tab, .pipe, .comma])
        // A delimiter equal to the format's default is the same watch as none.
        #expect(WatchConfiguration(name: "a", path: "/a.csv", format: .csv, delimiter: .comma) == WatchConfiguration(name: "a", path: "/a.csv", format: .csv))
    }

    @Test(
        "delimiter and ragged_rows reject unknown values and JSON watches, at their lines",
        arguments: [
            ("path = \"/d/a.csv\"\ndelimiter = \":\"", "/etc/listsyncd/listsyncd.toml:4:1: error: invalid 'delimiter': \":\" is none of \"comma\", \",\", \"semicolon\", \";\", \"tab\", \"\\t\", \"pipe\", \"|\""),
            ("path = \"/d/a.csv\"\nragged_rows = \"skip\"", "/etc/listsyncd/listsyncd.toml:4:1: error: invalid 'ragged_rows': \"skip\" is none of \"error\", \"pad\", \"truncate\""),
            ("path = \"/d/a.json\"\ndelimiter = \"tab\"", "/etc/listsyncd/listsyncd.toml:4:1: error: invalid 'delimiter': it applies to csv and tsv watches only, and this one is json"),
            ("path = \"/d/a.ndjson\"\nragged_rows = \"pad\"", "/etc/listsyncd/listsyncd.toml:4:1: error: invalid 'ragged_rows': it applies to csv and tsv watches only, and this one is ndjson"),
        ])
    func invalidCSVReadOptions(body: String, message: String) {
        #expect(problems(of: "[[watch]]\nname = \"a\"\n\(body)\n").map(\.description) == [message])
    }

    @Test("a file without watches loads with a warning", arguments: ["", "watch = []", "# only a comment\n"])
    func noWatches(toml: String) throws {
        let loaded = try parse(toml)
        #expect(loaded.configuration.watches.isEmpty)
        #expect(loaded.warnings == [.noWatches(file: configurationFile)])
    }

    @Test("comments, quoted keys and multi-line strings do not disturb line numbers")
    func trickyText() throws {
        let loaded = try parse(
            """
            "socket" = '/tmp/l.sock' # a literal string
            # [[watch]] in a comment is not a table
            state_directory = \"\"\"
            /var/lib/x\"\"\"
            [[watch]]
            "name" = "a"
            path = "/d/a[1].csv"
            format = "csv"
            [[watch]]
            name = "b"
            path = "/d/b.csv"
            ignore = [
              "x", # ] not the end
              "y",
            ]
            """
        )
        #expect(loaded.configuration.socketPath == "/tmp/l.sock")
        #expect(loaded.configuration.stateDirectory == "/var/lib/x")
        #expect(loaded.configuration.watches.map(\.path) == ["/d/a[1].csv", "/d/b.csv"])
        #expect(loaded.warnings.isEmpty)
        #expect(problems(of: "[[watch]]\nname = \"b\"\npath = \"/d/b.csv\"\nignore = [\n  \"x\", # ] not the end\n]\noops = 1\n").map { $0.location?.line } == [7])
    }

    @Test("load reads a real file and resolves paths against its directory")
    func loadFromDisk() throws {
        let directory = try ScratchDirectory()
        let file = directory.path + "/conf.toml"
        try directory.write("[[watch]]\nname = \"a\"\npath = \"lists/a.json\"\n", to: "conf.toml")
        let loaded = try DaemonConfiguration.load(file: file, environment: userEnvironment)
        #expect(loaded.configuration.watches.map(\.path) == [directory.path + "/lists/a.json"])
    }

    @Test("a file that cannot be read is reported with the system's reason")
    func unreadable() {
        #expect {
            try DaemonConfiguration.load(file: "/nonexistent/listsyncd.toml", environment: userEnvironment)
        } throws: { error in
            (error as? ConfigurationError)?.problems == [
                .unreadable(file: "/nonexistent/listsyncd.toml", reason: "open: No such file or directory (errno 2)")
            ]
        }
    }

    @Test("spare_memory_max_idle_ms bounds how long a watch keeps memory for its next version, 30 s by default, 0 allowed")
    func spareMemoryMaxIdle() throws {
        #expect(try parse("watch = []").configuration.spareMemoryMaxIdle == .seconds(30))
        #expect(try parse("spare_memory_max_idle_ms = 0\nwatch = []").configuration.spareMemoryMaxIdle == .zero)
        let configuration = try parse("spare_memory_max_idle_ms = 120000\nwatch = []").configuration
        #expect(configuration.spareMemoryMaxIdle == .seconds(120))
        for (value, complaint) in [("-1", "0"), ("3600001", "3600000"), ("\"30s\"", "integer")] {
            let found = problems(of: "watch = []\nspare_memory_max_idle_ms = \(value)\n").map(\.description)
            #expect(found.count == 1, "\(value): \(found)")
            #expect(found.first?.contains("listsyncd.toml:2:") == true, "\(value) at its line: \(found)")
            #expect(found.first?.contains("spare_memory_max_idle_ms") == true && found.first?.contains(complaint) == true, "\(value): \(found)")
        }
        // A reload applies it.
        var changed = configuration
        changed.spareMemoryMaxIdle = .seconds(5)
        let changes = ConfigurationChanges(from: configuration, to: changed)
        #expect(changes.settings == [.spareMemory])
        #expect(DaemonConfiguration.Setting.spareMemory.appliesOnReload)
        #expect(changed.inForce(replacing: configuration).spareMemoryMaxIdle == .seconds(5))
    }

    @Test("publish_while_writing is a boolean per watch, false by default, and a reload reports its change")
    func publishWhileWriting() throws {
        let watches = try parse(
            """
            [[watch]]
            name = "log"
            path = "/d/log.ndjson"
            publish_while_writing = true
            [[watch]]
            name = "export"
            path = "/d/export.csv"
            """
        ).configuration.watches
        #expect(watches.map(\.publishWhileWriting) == [true, false])
        var changed = watches[1]
        changed.publishWhileWriting = true
        #expect(changed.fields(differingFrom: watches[1]) == [.publishWhileWriting])
        let found = problems(of: "[[watch]]\nname = \"a\"\npath = \"/d/a.csv\"\npublish_while_writing = \"yes\"\n")
        #expect(found.count == 1 && found.first?.description.contains("publish_while_writing") == true, "\(found)")
    }
}
