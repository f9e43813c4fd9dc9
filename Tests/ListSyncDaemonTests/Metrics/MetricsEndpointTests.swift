import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

extension EndToEndTests {
    /// The metrics endpoint (`metrics_listen`) of a real daemon, read over HTTP by an independent
    /// client (Python's urllib) and checked by Prometheus' own `promtool`.
    @Suite struct Metrics {
        /// The series of an exposition, `name{labels}` → value; `# HELP` and `# TYPE` names apart.
        struct Exposition {
            var series: [String: Double] = [:]
            var helped: Set<String> = []
            var typed: Set<String> = []
            let text: String

            init(_ text: String) throws {
                self.text = text
                for line in text.split(separator: "\n") {
                    if line.hasPrefix("# HELP ") {
                        self.helped.insert(String(line.dropFirst(7).prefix { $0 != " " }))
                    } else if line.hasPrefix("# TYPE ") {
                        self.typed.insert(String(line.dropFirst(7).prefix { $0 != " " }))
                    } else if let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) {
                        self.series[String(line[..<space])] = value
                    } else {
                        throw TestFailure(description: "not an exposition line: \(line)")
                    }
                }
            }

            subscript(_ key: String) -> Double? { self.series[key] }
        }

        static func scrape(_ port: Int) async throws -> Exposition {
            let response = try await HTTPFetch.request("http://127.0.0.1:\(port)/metrics")
            guard response.status == 200 else { throw TestFailure(description: "GET /metrics: \(response.status) \(response.body)") }
            #expect(response.contentType == "text/plain; version=0.0.4; charset=utf-8")
            return try Exposition(response.body)
        }

        /// Runs `promtool check metrics` on `exposition`; returns its exit status and what it printed.
        static func promtool(_ exposition: String, in harness: DaemonHarness) async throws -> (Int32, String) {
            let file = harness.path("exposition-\(UInt32.random(in: 0...UInt32.max)).txt")
            try FileOperations.write(exposition, to: file)
            let check = try DaemonProcess(
                executable: "/bin/sh", arguments: ["-c", "exec promtool check metrics < \"$0\"", file], logPath: file + ".promtool")
            return (try await check.exited(timeout: .seconds(30)), check.log)
        }

        static let watch = "name = \"list\"\npath = \"list.csv\"\nkey = \"id\""

        /// The bytes of the regular files in `directory`.
        static func bytes(in directory: String) -> Double {
            guard let stream = opendir(directory) else { return 0 }
            defer { closedir(stream) }
            var total = 0
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                var status = stat()
                if stat(directory + "/" + name, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG { total += Int(status.st_size) }
            }
            return Double(total)
        }

        @Test func knownEditsAnInvalidVersionAndThreeSubscribersGiveExactCountsAndGauges() async throws {
            let harness = try DaemonHarness()
            let port = try HTTPFetch.freeLoopbackPort()
            let file = harness.path("list.csv")
            try FileOperations.write("id,name\n1,a\n2,b\n3,c\n", to: file)
            try harness.writeConfig([Self.watch], extra: "metrics_listen = \"127.0.0.1:\(port)\"\nclient_buffer_budget_mib = 64")
            try await harness.startDaemon()

            let idle = try await Self.scrape(port)
            #expect(idle.helped == idle.typed && !idle.typed.isEmpty, "every family has its HELP")
            #expect(idle[#"listsync_subscribers{watch="list"}"#] == 0)

            var subscribers: [MirrorSubscriber] = []
            for _ in 0..<3 {
                subscribers.append(try await harness.subscribe("list"))
            }
            for subscriber in subscribers {
                #expect(try await subscriber.receiveUntil { $0.mirror != nil })
            }
            func save(_ text: String, seq: UInt64) async throws {
                try EndToEndTests.Subscribers.save(text, to: file)
                for subscriber in subscribers {
                    #expect(try await subscriber.receiveUntil { $0.mirror?.cursor.seq == seq }, "\(harness.log)")
                }
            }
            // seq 1: record 2 updated, record 4 inserted; seq 2: record 1 deleted.
            try await save("id,name\n1,a\n2,B\n3,c\n4,d\n", seq: 1)
            try await save("id,name\n2,B\n3,c\n4,d\n", seq: 2)
            // One invalid version: the last good one stays live.
            try EndToEndTests.Subscribers.save("id,name\n5,\"never closed\n", to: file)
            for subscriber in subscribers {
                #expect(try await subscriber.receiveUntil { $0.status?.state == .invalid })
            }
            let invalid = try await Self.scrape(port)
            #expect(invalid[#"listsync_watch_state{watch="list",state="invalid"}"#] == 1)
            #expect(invalid[#"listsync_watch_state{watch="list",state="ok"}"#] == 0)
            #expect(invalid[#"listsync_watch_invalid_versions_total{watch="list"}"#] == 1)
            // seq 3: records 3 and 4 change places.
            try await save("id,name\n2,B\n4,d\n3,c\n", seq: 3)
            let movedOnTheWire = subscribers[0].changesetMessages.last.map { $0.stages.reduce(0) { $0 + $1.elementMoved.count } } ?? 0
            #expect(movedOnTheWire >= 1)

            let metrics = try await Self.scrape(port)
            var expected: [String: Double] = [
                #"listsync_watch_versions_total{watch="list"}"#: 4,
                #"listsync_watch_records_changed_total{watch="list",op="inserted"}"#: 1,
                #"listsync_watch_records_changed_total{watch="list",op="deleted"}"#: 1,
                #"listsync_watch_records_changed_total{watch="list",op="updated"}"#: 1,
                #"listsync_watch_records_changed_total{watch="list",op="moved"}"#: Double(movedOnTheWire),
                #"listsync_watch_invalid_versions_total{watch="list"}"#: 1,
                #"listsync_watch_state{watch="list",state="ok"}"#: 1,
                #"listsync_watch_state{watch="list",state="invalid"}"#: 0,
                #"listsync_watch_state{watch="list",state="loading"}"#: 0,
                #"listsync_watch_state{watch="list",state="missing"}"#: 0,
                #"listsync_watch_state{watch="list",state="writing"}"#: 0,
                #"listsync_watch_rows{watch="list"}"#: 3,
                #"listsync_watch_cursor_seq{watch="list"}"#: 3,
                #"listsync_subscribers{watch="list"}"#: 3,
                #"listsync_history_changesets{watch="list"}"#: 3,
                #"listsync_state_save_failing{watch="list"}"#: 0,
                #"listsync_state_bytes{watch="list"}"#: Self.bytes(in: harness.path("state/list")),
                "listsync_client_buffer_budget_bytes": 67_108_864,
                "listsync_client_buffer_bytes": 0,
                "listsync_inotify_overflows_total": 0,
                #"listsync_disconnects_total{reason="slow_consumer"}"#: 0,
                // Seqs 0 to 3 and the invalid version were parsed; the four versions saved.
                #"listsync_diff_duration_seconds_count{watch="list"}"#: 5,
                #"listsync_state_sync_duration_seconds_count{watch="list"}"#: 4,
                #"listsync_disconnects_total{reason="shutdown"}"#: 0,
                #"listsync_disconnects_total{reason="error"}"#: 0,
            ]
            // Seqs 1 to 3 came from saves the watcher announced, each timed once; version 0 from
            // the first read — timed too when that read could not be confirmed at once (a loaded
            // machine) and came from the watcher's announcement of the file. Never more than the
            // versions published.
            let timed = #"listsync_publish_duration_seconds_count{watch="list"}"#
            #expect(metrics[timed] == 3 || metrics[timed] == 4, "\(timed): \(String(describing: metrics[timed]))")
            expected[timed] = metrics[timed]
            for (series, value) in expected.sorted(by: { $0.key < $1.key }) {
                #expect(metrics[series] == value, "\(series)")
            }
            #expect(metrics.helped == metrics.typed, "every family has its HELP")
            // Each histogram's +Inf bucket holds its count; publication took some time, and every
            // read was timed.
            for family in ["publish", "diff", "state_sync", "read"] {
                let name = "listsync_\(family)_duration_seconds"
                #expect(metrics[name + #"_bucket{watch="list",le="+Inf"}"#] == metrics[name + #"_count{watch="list"}"#], "\(name)")
            }
            #expect((metrics[#"listsync_publish_duration_seconds_sum{watch="list"}"#] ?? 0) > 0)
            #expect((metrics[#"listsync_read_duration_seconds_count{watch="list"}"#] ?? 0) >= 5)
            let (status, printed) = try await Self.promtool(metrics.text, in: harness)
            #expect(status == 0 && printed.isEmpty, "promtool check metrics: \(printed)")
            // A real Prometheus server scraping every second gets the same values: instant
            // queries over its HTTP API.
            let prometheus = try await PrometheusServer.start(scraping: "127.0.0.1:\(port)", in: harness.directory.path)
            try await eventually("Prometheus has scraped the last version", timeout: .seconds(60)) {
                try await prometheus.value(of: #"listsync_watch_versions_total{watch="list"}"#) == 4
            }
            #expect(try await prometheus.value(of: #"up{job="listsync"}"#) == 1)
            for (series, value) in expected.sorted(by: { $0.key < $1.key }) where !series.hasPrefix("listsync_state_bytes") {
                #expect(try await prometheus.value(of: series) == value, "PromQL \(series)")
            }
            #expect(try await prometheus.value(of: #"sum(listsync_watch_records_changed_total{watch="list"})"#) == 3 + Double(movedOnTheWire))
            try await prometheus.stop()

            // The series are the same with three subscribers as with none.
            #expect(Set(metrics.series.keys) == Set(idle.series.keys))

            // Hang-ups are counted as closed by the client: the harness's client that waited for
            // the watch to load, `listsync metrics` below, a subscriber.
            let hungUp = try #require(metrics[#"listsync_disconnects_total{reason="closed_by_client"}"#])
            #expect(hungUp >= 1)
            // `listsync metrics` prints the same families over the daemon's socket.
            let cli = try DaemonProcess(
                executable: try DaemonProcess.cliPath, arguments: ["metrics", "--socket", harness.socketPath], logPath: harness.path("metrics.txt"))
            #expect(try await cli.exited(timeout: .seconds(30)) == 0, "\(cli.log)")
            let overSocket = try Exposition(cli.log)
            #expect(Set(overSocket.series.keys) == Set(metrics.series.keys))
            for series in expected.keys where !series.hasPrefix("listsync_client_buffer_bytes") {
                #expect(overSocket[series] == metrics[series], "\(series)")
            }
            // At least: a hang-up of an earlier client may still be on its way under load.
            let closedByClient = #"listsync_disconnects_total{reason="closed_by_client"}"#
            var counted = hungUp
            try await eventually("the command's hang-up is counted") {
                counted = try await Self.scrape(port)[closedByClient] ?? 0
                return counted >= hungUp + 1
            }
            subscribers.removeLast()
            try await eventually("the subscriber's hang-up is counted") {
                try await Self.scrape(port)[closedByClient] ?? 0 >= counted + 1
            }
            #expect(try await Self.scrape(port)[#"listsync_subscribers{watch="list"}"#] == 2)

            // The other paths.
            #expect(try await HTTPFetch.request("http://127.0.0.1:\(port)/live").status == 200)
            #expect(try await HTTPFetch.request("http://127.0.0.1:\(port)/ready").status == 200)
            #expect(try await HTTPFetch.request("http://127.0.0.1:\(port)/nothing").status == 404)
            #expect(try await HTTPFetch.request("http://127.0.0.1:\(port)/metrics", method: "POST").status == 405)
            #expect(try await harness.stopDaemon() == 0)
        }

        /// A client that hangs up with replies still unread makes the daemon's next read fail
        /// with `ECONNRESET` (what `AF_UNIX` reports then): still a hang-up, counted as
        /// `closed_by_client`, not as an `error`.
        @Test func aHangUpWithRepliesUnreadIsClosedByTheClient() async throws {
            let harness = try DaemonHarness()
            let port = try HTTPFetch.freeLoopbackPort()
            try FileOperations.write("id,name\n1,a\n", to: harness.path("list.csv"))
            try harness.writeConfig([Self.watch], extra: "metrics_listen = \"127.0.0.1:\(port)\"")
            try await harness.startDaemon()
            let closedByClient = #"listsync_disconnects_total{reason="closed_by_client"}"#
            let error = #"listsync_disconnects_total{reason="error"}"#
            // The harness's own client hung up after the watch loaded: wait until that is counted.
            var before = try Exposition("")
            try await eventually("the harness's hang-up is counted") {
                before = try await Self.scrape(port)
                return (before[closedByClient] ?? 0) >= 1
            }

            var client: ProtocolClient? = try await harness.connect()
            try client?.send(.subscribe(id: RequestID(1), watch: "list", since: nil))
            try await eventually("the snapshot has arrived, unread") {
                var poll = pollfd(fd: client?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)
                return Glibc.poll(&poll, 1, 0) == 1
            }
            client = nil
            try await eventually("the hang-up is counted") {
                (try await Self.scrape(port)[closedByClient] ?? 0) == (before[closedByClient] ?? 0) + 1
            }
            #expect(try await Self.scrape(port)[error] == before[error], "a hang-up is not an error")
            #expect(try await harness.stopDaemon() == 0)
        }

        @Test func readyIsUnavailableWhileAWatchLoadsThenAvailable() async throws {
            let harness = try DaemonHarness()
            let port = try HTTPFetch.freeLoopbackPort()
            try FileOperations.write("id,name\n1,a\n", to: harness.path("list.csv"))
            try harness.writeConfig([Self.watch], extra: "metrics_listen = \"127.0.0.1:\(port)\"")
            // The restore is held (a test hook) until `release` exists: the watch stays loading.
            let release = harness.path("release-restore")
            try await harness.startDaemon(environment: [RestoreHold.variable: release], waitingUntilLoaded: false)

            let loading = try await HTTPFetch.request("http://127.0.0.1:\(port)/ready")
            #expect(loading.status == 503)
            #expect(loading.body == "loading: list\n")
            #expect(try await HTTPFetch.request("http://127.0.0.1:\(port)/live").status == 200)
            let metrics = try await Self.scrape(port)
            #expect(metrics[#"listsync_watch_state{watch="list",state="loading"}"#] == 1)
            #expect(metrics[#"listsync_watch_state{watch="list",state="ok"}"#] == 0)

            try FileOperations.write("", to: release)
            try await eventually("/ready answers 200") {
                try await HTTPFetch.request("http://127.0.0.1:\(port)/ready").status == 200
            }
            #expect(try await Self.scrape(port)[#"listsync_watch_state{watch="list",state="ok"}"#] == 1)
            #expect(try await harness.stopDaemon() == 0)
        }

        /// `systemd/listsyncd-metrics.socket`, the unit shipped.
        static func metricsSocketUnit(file: String = #filePath) throws -> String {
            let repository = file.split(separator: "/", omittingEmptySubsequences: false).dropLast(4).joined(separator: "/")
            return try FileContent.read(repository + "/systemd/listsyncd-metrics.socket")
        }

        /// `systemd-socket-activate` passes a TCP socket named as the unit names it: the daemon
        /// serves its metrics there, the first scrape starting it, and does not bind `metrics_listen`.
        @Test func theMetricsSocketSystemdPassesIsServedAndWinsOverMetricsListen() async throws {
            let unit = try Self.metricsSocketUnit()
            #expect(unit.contains("\nListenStream=127.0.0.1:9464\n"))
            let name = try #require(unit.split(separator: "\n").first { $0.hasPrefix("FileDescriptorName=") }?.dropFirst("FileDescriptorName=".count))
            let harness = try DaemonHarness()
            let (passed, configured) = (try HTTPFetch.freeLoopbackPort(), try HTTPFetch.freeLoopbackPort())
            try FileOperations.write("id,name\n1,a\n", to: harness.path("list.csv"))
            try harness.writeConfig([Self.watch], extra: "metrics_listen = \"127.0.0.1:\(configured)\"")
            let activated = try DaemonProcess(
                executable: "/usr/bin/systemd-socket-activate",
                arguments: [
                    "-l", "127.0.0.1:\(passed)", "--fdname=\(name)", "-E", "NOTIFY_SOCKET=\(harness.directory.path)/notify",
                    try DaemonProcess.binaryPath, "--config", harness.configPath,
                ],
                logPath: harness.path("daemon.log"))
            try await eventually("the activated daemon serves /ready") {
                (try? await HTTPFetch.request("http://127.0.0.1:\(passed)/ready").status) == 200
            }
            let metrics = try await Self.scrape(passed)
            #expect(metrics[#"listsync_watch_versions_total{watch="list"}"#] == 1)
            #expect(metrics[#"listsync_watch_state{watch="list",state="ok"}"#] == 1)
            #expect(activated.log.contains("serving metrics metrics=descriptor 3 (socket-activated)"), "\(activated.log)")
            #expect((try? await HTTPFetch.request("http://127.0.0.1:\(configured)/live")) == nil, "metrics_listen is not bound")
            // Stopped here; should an expectation above throw, the process is killed when released.
            activated.send(SIGTERM)
            _ = try? await activated.exited()
        }

        /// systemd's `STATUS=` line says which watches need attention, and stops when none does.
        @Test func theStatusLineSaysWhatNeedsAttention() async throws {
            let harness = try DaemonHarness()
            let file = harness.path("list.csv")
            try harness.writeConfig([Self.watch, "name = \"other\"\npath = \"other.csv\"\nkey = \"id\""])
            try FileOperations.write("id,name\n1,a\n", to: harness.path("other.csv"))
            try await harness.startDaemon()
            try await harness.notification("STATUS=serving 2 watches to 0 subscribers on 0 connections; attention: 1 missing")
            try EndToEndTests.Subscribers.save("id,name\n1,\"never closed\n", to: file)
            try await harness.notification("STATUS=serving 2 watches to 0 subscribers on 0 connections; attention: 1 invalid")
            try EndToEndTests.Subscribers.save("id,name\n1,a\n", to: file)
            try await harness.notification("STATUS=serving 2 watches to 0 subscribers on 0 connections")
            #expect(try await harness.stopDaemon() == 0)
        }

        /// A version that cannot be saved: the gauge says so, and so does `STATUS=`, until it can.
        @Test func stateThatCannotBeSavedIsAGaugeAndInTheStatusLine() async throws {
            let harness = try DaemonHarness()
            let port = try HTTPFetch.freeLoopbackPort()
            let file = harness.path("list.csv")
            try FileOperations.write("id,name\n1,a\n", to: file)
            try harness.writeConfig([Self.watch], extra: "metrics_listen = \"127.0.0.1:\(port)\"")
            try await harness.startDaemon()
            #expect(try await Self.scrape(port)[#"listsync_state_save_failing{watch="list"}"#] == 0)
            // A file where the watch's state directory was: nothing can be written under it.
            try FileOperations.rename(harness.path("state/list"), to: harness.path("state/list.away"))
            try FileOperations.write("in the way", to: harness.path("state/list"))
            try EndToEndTests.Subscribers.save("id,name\n1,b\n", to: file)
            try await harness.notification("STATUS=serving 1 watch to 0 subscribers on 0 connections; attention: state of 1 watch cannot be saved")
            #expect(try await Self.scrape(port)[#"listsync_state_save_failing{watch="list"}"#] == 1)
            #expect(try await Self.scrape(port)[#"listsync_watch_versions_total{watch="list"}"#] == 1, "a version not saved is not published")
            try FileOperations.remove(harness.path("state/list"))
            try await harness.notification("STATUS=serving 1 watch to 0 subscribers on 0 connections")
            try await eventually("the version is published once saved") {
                try await Self.scrape(port)[#"listsync_watch_versions_total{watch="list"}"#] == 2
            }
            #expect(try await Self.scrape(port)[#"listsync_state_save_failing{watch="list"}"#] == 0)
            #expect(try await harness.stopDaemon() == 0)
        }

        /// A reload that removes a watch removes its series; one that adds a watch adds them.
        @Test func aReloadAddsAndRemovesAWatchsSeries() async throws {
            let harness = try DaemonHarness()
            let port = try HTTPFetch.freeLoopbackPort()
            try FileOperations.write("id,name\n1,a\n", to: harness.path("list.csv"))
            try FileOperations.write("id,name\n1,a\n2,b\n", to: harness.path("other.csv"))
            let other = "name = \"other\"\npath = \"other.csv\"\nkey = \"id\""
            let listen = "metrics_listen = \"127.0.0.1:\(port)\""
            try harness.writeConfig([Self.watch], extra: listen)
            try await harness.startDaemon()
            func watches(_ exposition: Exposition) -> Set<String> {
                Set(exposition.series.keys.compactMap { key in
                    key.range(of: #"watch=""#).map { String(key[$0.upperBound...].prefix { $0 != "\"" }) }
                })
            }
            #expect(watches(try await Self.scrape(port)) == ["list"])
            try harness.writeConfig([Self.watch, other], extra: listen)
            harness.daemon?.send(SIGHUP)
            try await harness.notification("READY=1")
            let added = try await Self.scrape(port)
            #expect(watches(added) == ["list", "other"])
            #expect(added[#"listsync_watch_rows{watch="other"}"#] == 2)
            try harness.writeConfig([other], extra: listen)
            harness.daemon?.send(SIGHUP)
            try await harness.notification("READY=1")
            let removed = try await Self.scrape(port)
            #expect(watches(removed) == ["other"])
            #expect(removed.helped == removed.typed)
            #expect(try await harness.stopDaemon() == 0)
        }

        @Test func aMistypedMetricsAddressIsAPositionedError() async throws {
            let harness = try DaemonHarness()
            try harness.writeConfig([Self.watch], extra: "metrics_listen = \"localhost:9464\"")
            let check = try DaemonProcess(
                executable: try DaemonProcess.binaryPath, arguments: ["--check-config", harness.configPath], logPath: harness.path("check.log"))
            #expect(try await check.exited() != 0)
            #expect(
                check.log.contains(
                    "invalid 'metrics_listen': \"localhost\" is not an IP address such as 127.0.0.1 or ::1 (host names are not looked up)"),
                "\(check.log)")
            #expect(check.log.contains("listsyncd.toml:"), "\(check.log)")
        }
    }
}
