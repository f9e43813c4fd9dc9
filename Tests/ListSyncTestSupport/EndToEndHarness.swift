import Glibc
import ListFormats
import ListSyncClient
import ListSyncProtocol
import Testing

/// A real `listsyncd` on real files in a scratch directory, and real `listsync` clients of it,
/// for end-to-end tests. Everything it started is killed and the directory removed when it goes
/// away.
package final class EndToEndHarness {
    /// A watched file.
    package struct Watch {
        package var name = "products"
        package var file = "products.csv"
        package var key = ["sku"]
        package var sectionBy: String? = "category"
        package var ignore: [String] = []

        /// A watch of `file` named `name`; by default the products CSV keyed by `sku`, sectioned by `category`.
        package init(
            name: String = "products", file: String = "products.csv", key: [String] = ["sku"], sectionBy: String? = "category",
            ignore: [String] = []
        ) {
            self.name = name
            self.file = file
            self.key = key
            self.sectionBy = sectionBy
            self.ignore = ignore
        }

        /// How the daemon reads the file, and how the tests read it and the mirrors.
        package var readOptions: ReadOptions {
            ReadOptions(format: ListFormat(path: self.file) ?? .json, key: self.key, sectionBy: self.sectionBy, ignore: self.ignore)
        }
    }

    /// Removed with everything in it when the harness goes away.
    private let scratch: ScratchDirectory
    package let directory: String
    package let watches: [Watch]
    package private(set) var daemon: ChildProcess?
    private var clients: [ChildProcess] = []
    private var started = 0

    package var socketPath: String { self.path("d.sock") }

    /// A scratch directory with a configuration for `watches`; the daemon is not started yet.
    package init(watches: [Watch] = [Watch()]) throws {
        self.scratch = try ScratchDirectory(prefix: "listsync-e2e")
        self.directory = self.scratch.path
        self.watches = watches
        let body = watches.map { watch in
            var lines = ["[[watch]]", "name = \"\(watch.name)\"", "path = \"\(self.path(watch.file))\""]
            // No key: records are identified by their content (the daemon refuses `key = []`).
            if !watch.key.isEmpty { lines.append("key = [" + watch.key.map { "\"\($0)\"" }.joined(separator: ", ") + "]") }
            if let sectionBy = watch.sectionBy { lines.append("section_by = \"\(sectionBy)\"") }
            if !watch.ignore.isEmpty { lines.append("ignore = [" + watch.ignore.map { "\"\($0)\"" }.joined(separator: ", ") + "]") }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n\n")
        try FileContent.write(
            """
            socket = "\(self.socketPath)"
            state_directory = "\(self.path("state"))"
            settle_after_close_ms = 10
            settle_after_modify_ms = 100
            settle_after_disappearance_ms = 60
            reconcile_interval_ms = 1000

            \(body)

            """, to: self.path("listsyncd.toml"))
    }

    /// A harness whose daemon runs on version 0 of the products file (``ProductVersions``).
    package static func running() async throws -> EndToEndHarness {
        let harness = try EndToEndHarness()
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try await harness.startDaemon()
        return harness
    }

    /// The first watch's file.
    package var watched: String { self.path(self.watches[0].file) }

    /// Saves `text` as the first watch's file, by `strategy`.
    package func save(_ text: String, by strategy: SaveStrategy = .writeTemporaryAndRename) async throws {
        try await strategy.save(text, to: self.watched, scratch: self.directory)
    }

    deinit {
        for client in self.clients { client.send(SIGKILL) }
        self.daemon?.send(SIGKILL)
        // The scratch directory goes with the harness's stored properties, after this.
    }

    package func path(_ name: String) -> String {
        self.scratch.path(name)
    }

    /// A built product next to this test bundle (``BuiltProducts``).
    package static func binary(_ name: String) throws -> String {
        try BuiltProducts.path(name)
    }

    // MARK: The daemon

    /// Starts `listsyncd` and waits until it answers with every watch loaded.
    package func startDaemon() async throws {
        self.started += 1
        self.daemon = try ChildProcess(
            try Self.binary("listsyncd"), ["--config", self.path("listsyncd.toml")],
            outputPath: self.path("daemon-\(self.started).log"), errorPath: self.path("daemon-\(self.started).log"))
        try await eventually("listsyncd serves its watches") {
            guard let watches = try? await self.watchSummaries() else { return false }
            return watches.allSatisfy { $0.state != .loading }
        }
    }

    /// Stops `listsyncd` with SIGTERM.
    package func stopDaemon() async throws {
        let status = try await self.daemon?.stop()
        expectDaemonExit(status)
    }

    /// The daemon's watches, asked through the client library.
    package func watchSummaries() async throws -> [WatchSummary] {
        try await ListSyncClient(configuration: ClientConfiguration(socketPath: self.socketPath, reconnect: .never)).watches()
    }

    /// Waits until the daemon has published version `seq` of `watch`.
    package func waitForVersion(_ seq: UInt64, of watch: String = "products", timeout: Duration = .seconds(20)) async throws {
        try await eventually("the daemon publishes version \(seq) of \(watch)", timeout: timeout) {
            try await self.watchSummaries().first { $0.name == watch }?.cursor?.seq == seq
        }
    }

    /// Waits until the daemon reports `state` for `watch`.
    package func waitForState(_ state: WatchState, of watch: String = "products") async throws {
        try await eventually("\(watch) is \(state)") {
            try await self.watchSummaries().first { $0.name == watch }?.state == state
        }
    }

    package var daemonLog: String { readFile(self.path("daemon-\(self.started).log")) }

    // MARK: Clients

    /// Starts `listsync SUBCOMMAND --socket … ARGUMENTS` (without `--socket` for the commands
    /// that read files, `parse` and `diff`).
    /// Its standard output goes to `outputPath` (by default a file of its own).
    package func client(_ subcommand: String, _ arguments: [String], outputPath: String? = nil) throws -> ChildProcess {
        let socket = ["parse", "diff"].contains(subcommand) ? [] : ["--socket", self.socketPath]
        return try self.process(try Self.binary("listsync"), [subcommand] + socket + arguments, outputPath: outputPath)
    }

    /// Starts any other client program (`/usr/bin/env python3 …`), killed with the harness.
    package func process(_ executable: String, _ arguments: [String], outputPath: String? = nil) throws -> ChildProcess {
        let number = self.clients.count
        let client = try ChildProcess(
            executable, arguments, outputPath: outputPath ?? self.path("client-\(number).out"), errorPath: self.path("client-\(number).err"))
        self.clients.append(client)
        return client
    }

    /// Starts `listsync SUBCOMMAND --socket … ARGUMENTS` on a terminal `columns` wide: under
    /// script(1), whose pseudo-terminal is the command's standard input, output and error, and
    /// whose output (what the terminal shows, `\r\n` line ends) goes to the process's output file.
    package func terminalClient(_ subcommand: String, _ arguments: [String], columns: Int = 200) throws -> ChildProcess {
        let number = self.clients.count
        let words = [try Self.binary("listsync"), subcommand, "--socket", self.socketPath] + arguments
        let commandLine = "stty cols \(columns); " + words.map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ")
        let client = try ChildProcess(
            "/usr/bin/script", ["-qec", commandLine, "/dev/null"],
            outputPath: self.path("client-\(number).out"), errorPath: self.path("client-\(number).err"))
        self.clients.append(client)
        return client
    }

    /// Runs `listsync SUBCOMMAND --socket … ARGUMENTS` to its end; fails when it has not ended
    /// within `timeout` (a hang guard: a debug build reading a large snapshot beside a full run
    /// has taken more than 20 s).
    package func run(
        _ subcommand: String, _ arguments: [String], timeout: Duration = .seconds(60)
    ) async throws -> (status: Int32, output: String, error: String) {
        let client = try self.client(subcommand, arguments)
        let status = try await client.waitForExit(timeout: timeout)
        return (status, client.output, client.errorOutput)
    }

    // MARK: Files

    /// The list in `file` — a watched file or a mirror of the first watch, in the format its
    /// extension names — read with the watch's key and sections (and, for the watched file, its
    /// ignored fields: a mirror has none); `nil` while it does not parse (or is missing).
    package func document(_ file: String) -> ListDocument? {
        var options = self.watches[0].readOptions
        options.format = ListFormat(path: file) ?? options.format
        if file != self.watches[0].file && file != self.watched {
            options.ignore = []
        }
        if options.format == .json {
            // A sectioned list written as JSON is an object of arrays, sectioned by member name.
            options.sectionBy = nil
        }
        return try? ListReader(options: options).read(contentsOfFile: file.hasPrefix("/") ? file : self.path(file)).document
    }

    /// Starts `listsync mirror products --output FILE` and waits until FILE holds the first
    /// version.
    package func startMirror(_ file: String) async throws -> ChildProcess {
        let mirror = try self.client("mirror", [self.watches[0].name, "--output", self.path(file)])
        try await self.waitUntilMirrored(file, equals: self.watches[0].file, "the first snapshot")
        return mirror
    }

    /// Waits until `mirror` holds exactly what `file` holds.
    package func waitUntilMirrored(_ mirror: String, equals file: String, _ what: String) async throws {
        try await eventually("\(mirror) mirrors \(file) (\(what))") {
            guard let expected = self.document(file) else { return false }
            return self.document(mirror) == expected
        }
    }
}

/// The daemon exits 0 on SIGTERM.
package func expectDaemonExit(_ status: Int32?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(status == 0, "listsyncd exit status", sourceLocation: sourceLocation)
}
