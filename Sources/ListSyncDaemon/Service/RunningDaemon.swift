import FileWatching
import ListSyncProtocol
import Logging
import NIOPosix
import Synchronization

/// Everything one run of the daemon holds, shared by the service's tasks: the configuration in
/// force, the watcher, the trackers and their feeds, the server — and what changes them: starting
/// a watch, reloading, notifying systemd.
final class RunningDaemon: Sendable {
    let watcher: FileWatcher
    let trackers = TrackerSet()
    let directory = WatchFeeds()
    let serverContext: ServerContext
    /// The daemon's metrics (one registry per daemon), served by the metrics endpoint and the
    /// `metrics` request.
    let metrics: DaemonMetrics
    private let status: StatusReporter
    private let configuration: Mutex<DaemonConfiguration>
    private let serverBox = Mutex<SocketServer?>(nil)
    private let environment: ProcessEnvironment
    private let notifier: SystemdNotifier?
    private let pool: NIOThreadPool
    /// The test hook that kills the daemon at a step of saving state (see ``StateCrashPoints``).
    private let crashPoints: StateCrashPoints
    /// The machine's boot id, which the state of a watch that publishes before it flushes
    /// records (``PublishedBeforeSyncMark``); `nil` when it cannot be read.
    private let bootID: String?
    /// The test hook that holds every watch's restore (see ``RestoreHold``).
    private let restoreHold: RestoreHold
    private let logger: Logger

    init(
        configuration: DaemonConfiguration, epoch: Epoch, environment: ProcessEnvironment, systemd: SystemdIntegration,
        pool: NIOThreadPool, logger: Logger
    ) {
        let metrics = DaemonMetrics(clientBufferBudget: configuration.clientBufferBudget)
        self.metrics = metrics
        self.watcher = FileWatcher(configuration: configuration.watcher, logger: logger, onQueueOverflow: { metrics.noteInotifyOverflow() })
        self.configuration = Mutex(configuration)
        self.environment = environment
        self.notifier = systemd.notifier
        self.pool = pool
        self.crashPoints = StateCrashPoints(setting: environment[StateCrashPoints.variable], hold: environment[StateCrashPoints.holdVariable],
            failedFlush: environment[StateCrashPoints.failedFlushVariable])
        self.restoreHold = RestoreHold(setting: environment[RestoreHold.variable])
        self.bootID = PublishedBeforeSyncMark.currentBootID(testOverride: environment[PublishedBeforeSyncMark.testBootIDVariable])
        self.logger = logger
        if !configuration.syncBeforePublish, self.bootID == nil {
            logger.warning(
                "sync_before_publish = false needs the boot id (\(PublishedBeforeSyncMark.bootIDPath)), which cannot be read: every version is flushed before it is published")
        }
        let connections = ConnectionRegistry()
        let status = StatusReporter(notifier: systemd.notifier, directory: self.directory, connections: connections)
        self.status = status
        self.serverContext = ServerContext(
            configuration: ServerConfiguration(
                access: Self.access(configuration, environment: environment), heartbeatInterval: configuration.heartbeatInterval,
                clientBufferBudget: configuration.clientBufferBudget, unfinishedLineTimeout: configuration.unfinishedLineTimeout),
            epoch: epoch, watches: self.directory, connections: connections, metrics: metrics, pool: pool, logger: logger,
            onConnectionsChange: { status.report() })
    }

    /// The server, once it listens.
    var server: SocketServer? {
        get { self.serverBox.withLock { $0 } }
        set { self.serverBox.withLock { $0 = newValue } }
    }

    /// Starts following `watch`: a feed, a tracker running in `group` (which first restores the
    /// watch's saved state), and the watcher's watch.
    ///
    /// - Parameter epoch: The history a watch without saved state starts: a fresh one for every
    ///   watch, so a cursor of one watch (or of an earlier watch of the same name) is never
    ///   resumed against another.
    func startWatch(
        _ watch: WatchConfiguration, epoch: Epoch, in group: inout ThrowingDiscardingTaskGroup<any Error>
    ) throws(FileWatcherError) {
        // Watched first: a watch that cannot be watched leaves nothing behind (no series either).
        let watchedPath = try self.watcher.watch(watch.path)
        let (historyLength, historyMaxBytes, historyCacheBytes, stateDirectory, spareMemoryMaxIdle, syncBeforePublish) = self.configuration.withLock {
            ($0.historyLength, $0.historyMaxBytes, $0.historyCacheBytes, $0.stateDirectory, $0.spareMemoryMaxIdle, $0.syncBeforePublish)
        }
        var store = WatchStateStore(
            stateDirectory: stateDirectory, name: watch.name, historyLength: historyLength, historyMaxBytes: historyMaxBytes,
            crashPoints: self.crashPoints, isPersistent: self.environment[WatchStateStore.benchmarkSwitch] != "1",
            publishBeforeSync: !syncBeforePublish, bootID: self.bootID)
        // Memory caches the newest changesets; older ones are read back from the log. Without
        // state on disk, memory holds the whole (byte-bounded) history.
        let cacheBytes = store.isPersistent ? min(historyCacheBytes, historyMaxBytes) : historyMaxBytes
        store.restoredBytes = cacheBytes
        // Issue 19: saved versions held as mappings of the state files (nothing without state;
        // `LISTSYNCD_MAP_SAVED_BYTES=0` turns it off, to compare).
        store.mapsSavedBytes = store.isPersistent && self.environment[WatchStateStore.mappingSwitch] != "0"
        // Their records too, from a file of the watch's own (`LISTSYNCD_MAP_SAVED_RECORDS=0`: not).
        if store.isPersistent, self.environment[SavedRecordsFile.mappingSwitch] != "0" {
            store.savedRecords = SavedRecordsFile(directory: store.directory)
        }
        let pool = self.pool
        let version1Clients = store.isPersistent ? store.version1Clients : nil
        let feed = WatchFeed(
            watch: watch, epoch: epoch, historyLength: historyLength, cacheBytes: cacheBytes, archive: store.isPersistent ? store.archive : nil,
            metrics: self.metrics.watch(named: watch.name, stateDirectory: store.isPersistent ? store.directory : nil),
            onStatusChange: { [status = self.status] in status.report() },
            onVersion1Client: { cursor in
                // A small file written off the event loop; see ``Version1ClientMark``.
                guard let version1Clients else { return }
                Task { try? await pool.runIfActive { version1Clients.note(cursor) } }
            })
        let tracker = FileTracker(
            watch: watch, feed: feed, store: store, restoreHold: self.restoreHold, spareMemoryMaxIdle: spareMemoryMaxIdle, logger: self.logger)
        self.trackers.add(tracker, watchedPath: watchedPath)
        group.addTask { await tracker.run(pool: pool) }
        group.addTask {
            await tracker.waitUntilRestored()
            feed.finishRestoring()
        }
    }

    /// Offers the trackers' watches to clients, in configuration order.
    func publishWatchList() {
        self.directory.replace(with: self.trackers.all.map(\.feed))
        self.status.report()
    }

    /// Returns once every one of `trackers` has read its file once.
    func waitUntilLoaded(_ trackers: [FileTracker]) async {
        for tracker in trackers {
            await tracker.waitUntilLoaded()
        }
    }

    /// Tells systemd the daemon is ready (after start or a reload), with the status line.
    func announceReady() {
        let line = self.status.current
        self.status.noteSent(line)
        self.notify([.ready, .status(line.description)])
    }

    /// Sends notifications to systemd, if it listens; a failure is logged, never fatal.
    func notify(_ notifications: [SystemdNotification]) {
        guard let notifier = self.notifier else { return }
        do {
            try notifier.notify(notifications)
        } catch {
            self.logger.warning("cannot notify systemd", metadata: ["error": "\(error)"])
        }
    }

    /// Sends `WATCHDOG=1` every half timeout while the watcher thread is alive, until cancelled.
    func pingWatchdog(_ watchdog: SystemdWatchdog) async {
        // The watcher thread turns at least once a second; allow for a busy moment.
        let liveness = max(Duration.seconds(3), watchdog.pingInterval)
        while (try? await Task.sleep(for: watchdog.pingInterval)) != nil {
            if FileWatcher.isInotifyThreadResponsive(within: liveness) {
                self.notify([.watchdog])
                // A status line the socket could not take when it changed goes now.
                self.status.report()
            } else {
                self.logger.error("the watcher thread is not responding; withholding the watchdog ping")
            }
        }
    }

    /// Reloads the configuration file (SIGHUP): `RELOADING=1`, the changes applied, `READY=1`.
    ///
    /// Added watches start; removed ones end their subscriptions with a `removed` status; changed
    /// ones keep their feed and subscribers and re-read the file at once with the new settings:
    /// subscribers get one changeset, or a snapshot under a new epoch when the records are
    /// identified differently (see ``FileTracker/reconfigure(_:)``); unchanged ones carry on. A
    /// file that does not load (a syntax error, an unknown key…) is refused with its errors
    /// logged, and the running configuration stays.
    func reload(from file: String, in group: inout ThrowingDiscardingTaskGroup<any Error>) async {
        self.notify([.reloadingNow()])
        self.logger.info("reloading the configuration", metadata: ["file": "\(file)"])
        defer { self.announceReady() }
        let loaded: LoadedConfiguration
        do {
            loaded = try DaemonConfiguration.load(file: file, environment: self.environment)
        } catch {
            self.logger.error("the configuration does not load; keeping the running one\n\(error)")
            return
        }
        for warning in loaded.warnings {
            self.logger.warning("\(warning)")
        }
        let old = self.configuration.withLock { $0 }
        let changes = ConfigurationChanges(from: old, to: loaded.configuration)
        let new = loaded.configuration.inForce(replacing: old)
        self.configuration.withLock { $0 = new }

        for watch in changes.removed {
            guard let (tracker, watchedPath) = self.trackers.remove(named: watch.name) else { continue }
            tracker.stop(removingState: true)
            tracker.feed.remove()
            self.metrics.removeWatch(named: watch.name)
            try? self.watcher.unwatch(watchedPath)
            self.logger.info("watch removed", metadata: ["watch": "\(watch.name)"])
        }
        var started: [FileTracker] = []
        for watch in changes.added {
            do {
                try self.startWatch(watch, epoch: Epoch.random(), in: &group)
                if let (tracker, _) = self.trackers.tracker(named: watch.name) { started.append(tracker) }
                self.logger.info("watch added", metadata: ["watch": "\(watch.name)"])
            } catch {
                self.logger.error("cannot start watch", metadata: ["watch": "\(watch.name)", "error": "\(error)"])
            }
        }
        for change in changes.changed {
            guard let (tracker, watchedPath) = self.trackers.tracker(named: change.new.name) else { continue }
            if change.fields.contains(.path) {
                do {
                    let newPath = try self.watcher.watch(change.new.path)
                    try? self.watcher.unwatch(watchedPath)
                    self.trackers.move(named: change.new.name, to: newPath)
                } catch {
                    self.logger.error("cannot watch the new path", metadata: ["watch": "\(change.new.name)", "error": "\(error)"])
                    continue
                }
            }
            let startsEpoch = tracker.reconfigure(change.new)
            self.logger.info(
                "watch changed",
                metadata: [
                    "watch": "\(change.new.name)", "fields": "\(WatchConfiguration.Field.configurationKeys(change.fields))",
                    "records": "\(startsEpoch ? "identified anew: new epoch, subscribers get a snapshot" : "diffed: subscribers get a changeset")",
                ])
        }
        for watch in new.watches {
            guard let tracker = self.trackers.tracker(named: watch.name)?.tracker else { continue }
            tracker.feed.reconfigure(format: watch.format, key: watch.key, path: watch.path, historyLength: new.historyLength)
            tracker.keepHistory(new.historyLength, maxBytes: new.historyMaxBytes)
            tracker.keepSpareMemory(atMost: new.spareMemoryMaxIdle)
        }
        await self.server?.update(access: Self.access(new, environment: self.environment), heartbeatInterval: new.heartbeatInterval)
        for setting in changes.settings where !setting.appliesOnReload {
            self.logger.warning("a changed setting takes effect only after a restart", metadata: ["setting": "\(setting.configurationKey)"])
        }
        self.trackers.reorder(new.watches.map(\.name))
        self.publishWatchList()
        await self.waitUntilLoaded(started)
    }

    private static func access(_ configuration: DaemonConfiguration, environment: ProcessEnvironment) -> PeerAccess {
        PeerAccess(daemonUserID: environment.userID, allowedUserIDs: configuration.allowedUserIDs, allowedGroups: configuration.allowedGroups)
    }
}
