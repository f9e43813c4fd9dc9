import ListSyncProtocol
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnixSignals

/// The whole daemon as one swift-service-lifecycle `Service`: the file watcher, a tracker and a
/// feed per watch, the socket server, heartbeats, the systemd watchdog, and configuration reloads.
///
/// ```swift
/// let service = ListSyncService(configuration: loaded.configuration, configurationFile: path,
///                               environment: environment, systemd: systemd, logger: logger)
/// let group = ServiceGroup(configuration: .init(services: [service],
///                                               gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
///
/// Life cycle, as systemd sees it: `READY=1` as soon as the socket listens (the watches restore
/// their history and read their files meanwhile, `loading` until then);
/// on SIGHUP `RELOADING=1` (with `MONOTONIC_USEC`), the new configuration applied — added watches
/// start, removed ones end their subscriptions with status `removed`, unchanged ones keep their
/// subscribers and sequence — then `READY=1`; on graceful shutdown `STOPPING=1`, the server stops
/// accepting and says `goodbye` to everyone, and `run()` returns. `STATUS=` follows the watch and
/// subscriber counts; `WATCHDOG=1` is sent every half `WATCHDOG_USEC` while the watcher thread is alive.
public final class ListSyncService: Service {
    private let initialConfiguration: DaemonConfiguration
    private let configurationFile: String
    private let environment: ProcessEnvironment
    private let systemd: SystemdIntegration
    private let logger: Logger

    /// A daemon for `configuration`, which was loaded from `configurationFile` (read again on SIGHUP).
    public init(
        configuration: DaemonConfiguration, configurationFile: String, environment: ProcessEnvironment,
        systemd: SystemdIntegration, logger: Logger
    ) {
        self.initialConfiguration = configuration
        self.configurationFile = configurationFile
        self.environment = environment
        self.systemd = systemd
        self.logger = logger
    }

    public func run() async throws {
        // Before anything in the state directory is read or written: a second daemon on it stops here.
        let stateLock = try StateDirectoryLock(stateDirectory: self.initialConfiguration.stateDirectory)
        defer { withExtendedLifetime(stateLock) {} }
        // Trap SIGHUP first: its default action would end the process.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let pool = NIOThreadPool(numberOfThreads: max(2, System.coreCount))
        pool.start()
        var failure: (any Error)?
        do {
            try await self.serve(hangups: hangups, eventLoops: eventLoops, pool: pool)
        } catch {
            failure = error
        }
        try? await pool.shutdownGracefully()
        try? await eventLoops.shutdownGracefully()
        if let failure { throw failure }
    }

    /// Serves the metrics over HTTP on the socket systemd passed, else at `metrics_listen`, else nowhere.
    private func startMetricsEndpoint(running: RunningDaemon, eventLoops: MultiThreadedEventLoopGroup) async throws -> MetricsEndpoint? {
        let listener: MetricsEndpoint.Listener
        if let descriptor = self.systemd.metricsDescriptor {
            listener = .activated(descriptor: descriptor)
        } else if let address = self.initialConfiguration.metricsListen {
            listener = .address(address)
        } else {
            return nil
        }
        let endpoint = try await MetricsEndpoint.start(
            listener: listener, context: running.serverContext, group: eventLoops, limits: MetricsEndpoint.Limits(environment: self.environment))
        self.logger.info("serving metrics", metadata: ["metrics": "\(listener)"])
        return endpoint
    }

    private func serve(hangups: UnixSignalsSequence, eventLoops: MultiThreadedEventLoopGroup, pool: NIOThreadPool) async throws {
        let running = RunningDaemon(
            configuration: self.initialConfiguration, epoch: Epoch.random(), environment: self.environment, systemd: self.systemd,
            pool: pool, logger: self.logger)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await running.watcher.run() }
            group.addTask {
                for await event in running.watcher.events {
                    running.trackers.fileEvent(event)
                }
            }
            for watch in self.initialConfiguration.watches {
                // Each watch a history of its own: a cursor of one watch never resumes another.
                try running.startWatch(watch, epoch: Epoch.random(), in: &group)
            }
            running.publishWatchList()
            // Clients are served at once, while the watches restore their saved history: `list`
            // says `loading`, and a `subscribe` is answered once its watch's history is back, so a
            // cursor from before the restart resumes (see ``ConnectionHandler``).
            let listener: SocketServer.Listener
            if let descriptor = self.systemd.listeningDescriptor {
                listener = .activated(descriptor: descriptor)
            } else {
                listener = .path(self.initialConfiguration.socketPath, mode: self.initialConfiguration.socketMode)
            }
            let server = try await SocketServer.start(listener: listener, context: running.serverContext, group: eventLoops, pool: pool)
            running.server = server
            self.logger.info("listening", metadata: ["socket": "\(listener)"])
            let metricsEndpoint = try await self.startMetricsEndpoint(running: running, eventLoops: eventLoops)
            group.addTask { await server.runHeartbeats() }
            if let watchdog = self.systemd.watchdog {
                group.addTask { await running.pingWatchdog(watchdog) }
            }
            running.announceReady()
            self.logger.info("ready", metadata: ["watches": "\(running.trackers.all.count)"])

            for await _ in hangups.cancelOnGracefulShutdown() {
                await running.reload(from: self.configurationFile, in: &group)
            }

            self.logger.info("shutting down")
            running.notify([.stopping])
            await metricsEndpoint?.shutdown()
            await server.shutdown()
            for tracker in running.trackers.all {
                tracker.stop()
            }
            // Each tracker ends after the read in progress, once its version is saved and its
            // changeset is in the log: cancelling at once could skip that append, and the next
            // start would find the log a version behind. A tracker still restoring has no read
            // to finish; one that takes longer than the bound is cancelled as before. The bound
            // stays under the service group's graceful shutdown (8 s, `ListSyncDaemonCommand`)
            // and systemd's TimeoutStopSec=10s, so the rest of the shutdown still runs.
            let deadline = ContinuousClock.now + .seconds(5)
            for tracker in running.trackers.all where tracker.isRestored {
                await tracker.waitUntilEnded(before: deadline)
            }
            group.cancelAll()
        }
    }
}
