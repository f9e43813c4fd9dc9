import Testing

@testable import ListSyncDaemon

/// The catalogue of configurations that load, with the values they must produce.
@Suite("DaemonConfiguration parsing")
struct DaemonConfigurationParsingTests {
    @Test("the example from the issue yields exactly its values")
    func issueExample() throws {
        let loaded = try parse(
            """
            socket = "/run/listsyncd/listsyncd.sock"   # default; $XDG_RUNTIME_DIR/listsyncd.sock when not root
            state_directory = "/var/lib/listsyncd"    # used by later work; create it if missing
            allow_uids = [1000]                       # peer-credential allowlist
            allow_groups = ["listsync"]
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
                    allowedGroups: [.name("listsync")],
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
        let configuration = try parse(
            """
            allow_uids = [0, 1000, 4294967294]
            allow_groups = ["listsync", 1001]
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
        #expect(configuration.allowedGroups == [.name("listsync"), .id(1001)])
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

    @Test("unknown keys and tables are warnings with their lines; the rest still loads")
    func unknownKeys() throws {
        let loaded = try parse(
            """
            socket_mode = "0600"
            colour = "blue"

            [[watch]]
            name = "a"
            path = "/d/a.csv"
            fromat = "csv"

            [server]
            port = 1
            """
        )
        #expect(loaded.configuration.socketMode == 0o600)
        #expect(loaded.configuration.watches.map(\.name) == ["a"])
        #expect(loaded.warnings.map(kind) == ["unknownKey", "unknownKey", "unknownKey"])
        #expect(loaded.warnings.map { $0.location?.line } == [2, 7, 9])
        #expect(loaded.warnings.map(\.description) == [
            "/etc/listsyncd/listsyncd.toml:2:1: unknown key 'colour' (ignored)",
            "/etc/listsyncd/listsyncd.toml:7:1: unknown key 'fromat' (ignored)",
            "/etc/listsyncd/listsyncd.toml:9:1: unknown key 'server' (ignored)",
        ])
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
            oops = 1
            """
        )
        #expect(loaded.configuration.socketPath == "/tmp/l.sock")
        #expect(loaded.configuration.stateDirectory == "/var/lib/x")
        #expect(loaded.configuration.watches.map(\.path) == ["/d/a[1].csv", "/d/b.csv"])
        #expect(loaded.warnings.map { $0.location?.line } == [16])
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
}
