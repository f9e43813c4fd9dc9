#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import DurableFiles
import ListSyncDaemon
import ListSyncProtocol
import Logging
import ServiceLifecycle

/// `listsyncd`: watches list files and serves their changes on a Unix socket, in the foreground.
struct ListSyncDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listsyncd",
        abstract: "Watch list-shaped data files and broadcast their changes to subscribers over a Unix socket.",
        discussion: """
            Runs in the foreground. SIGHUP reloads the configuration; SIGTERM and SIGINT shut down \
            gracefully. Under systemd it reports readiness (Type=notify), pings the watchdog and \
            serves on a socket-activated descriptor when one is passed (\"api\"; one named \
            \"metrics\", from listsyncd-metrics.socket, serves the Prometheus metrics). STATUS= \
            says what it serves and which watches need attention. When standard error is the \
            journal, log records go through the journal's native socket with the fields \
            LISTSYNC_WATCH, LISTSYNC_CURSOR and LISTSYNC_PATH: journalctl LISTSYNC_WATCH=products \
            shows the records about one watch.

            Each watch's history is kept in the state directory (state_directory), saved before \
            any client sees it: after a restart or a crash the watches keep their epochs, clients \
            resume from their cursors with the changesets they missed, and an edit made while the \
            daemon was down is published as the next change. To reset a watch, stop the daemon \
            and delete its directory there. Only one listsyncd may use a state directory: a \
            second one exits with status 1, naming the lock file (<state_directory>/.lock) and \
            the pid of the daemon holding it. History is bounded by history_length and \
            history_max_mib.

            Every configuration key is described in listsyncd.toml(5).
            """,
        version: ListSyncVersion.current
    )

    @Option(name: .long, help: ArgumentHelp("The configuration file.", valueName: "file"))
    var config = "/etc/listsyncd/listsyncd.toml"

    @Option(name: .customLong("check-config"), help: ArgumentHelp("Check a configuration file and exit: 0 when it loads, 1 with its errors otherwise.", valueName: "file"))
    var checkConfig: String?

    /// Sets malloc up. Here, on the main thread, before any other thread allocates: a thread
    /// keeps the arena it first allocated from, and `run()` runs on a thread of the concurrency
    /// pool (main.swift).
    static func setUpMalloc() {
        let environment = ProcessEnvironment.current()
        // Buffers of a version's read and diff go back to the system when freed.
        MallocThresholds.returnFreedMemory.apply(tunables: environment["GLIBC_TUNABLES"])
        // Every thread on the main heap: no arena's free memory kept per thread.
        MallocArenas.daemon.apply(tunables: environment["GLIBC_TUNABLES"], arenaMaxVariable: environment["MALLOC_ARENA_MAX"])
    }

    mutating func run() async throws {
        let environment = ProcessEnvironment.current()
        // The passed sockets are ours; children must not think so.
        SocketActivation.removeEnvironmentVariables()
        let style = StandardErrorLogHandler.Style(environment: environment)
        // Standard error is the journal: records go through its native socket, with fields.
        let journal = style == .journal ? JournalSender(environment: environment) : nil
        // `LISTSYNCD_LOG_LEVEL=debug` adds, among others, each version's timeline (issue 19).
        let level = environment["LISTSYNCD_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StandardErrorLogHandler(label: label, style: style, journal: journal)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "listsyncd")

        if let file = self.checkConfig {
            let loaded = try Self.load(file, environment: environment)
            for warning in loaded.warnings {
                Self.printError(warning.description)
            }
            print("\(file): OK, \(loaded.configuration.watches.count) watch\(loaded.configuration.watches.count == 1 ? "" : "es")")
            return
        }
        let loaded = try Self.load(self.config, environment: environment)
        for warning in loaded.warnings {
            logger.warning("\(warning)")
        }
        let systemd: SystemdIntegration
        do {
            let activation = try SocketActivation(environment: environment)
            systemd = SystemdIntegration(
                notifier: try SystemdNotifier(environment: environment),
                watchdog: try SystemdWatchdog(environment: environment),
                listeningDescriptor: try (activation?.socket(named: "api") ?? activation?.sockets.first { $0.name != "metrics" })?.adopt(),
                metricsDescriptor: try activation?.socket(named: "metrics")?.adopt(families: [AF_INET, AF_INET6]))
        } catch {
            logger.critical("cannot use what systemd passed: \(error)")
            throw ExitCode.failure
        }
        let service = ListSyncService(
            configuration: loaded.configuration, configurationFile: self.config, environment: environment, systemd: systemd,
            logger: logger)
        var groupConfiguration = ServiceGroupConfiguration(
            services: [service], gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger)
        // Shutdown takes about a second (goodbyes); never let it hang a stop job.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(8)
        groupConfiguration.maximumCancellationDuration = .seconds(2)
        let group = ServiceGroup(configuration: groupConfiguration)
        do {
            try await group.run()
        } catch {
            logger.critical("listsyncd stopped: \(error)")
            throw ExitCode.failure
        }
    }

    /// Loads `file`; on failure prints every problem (`file:line:column: error: message`) to
    /// standard error and exits 1. The caller shows the warnings.
    private static func load(_ file: String, environment: ProcessEnvironment) throws -> LoadedConfiguration {
        do {
            return try DaemonConfiguration.load(file: file, environment: environment)
        } catch {
            Self.printError(error.description)
            throw ExitCode.failure
        }
    }

    private static func printError(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
