import FileWatching
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Everything `listsyncd` is configured with: where it listens, who may connect, what it watches
/// and its timing tunables.
///
/// The timing of file watching (settle delays, reconciliation) is the watcher's own
/// ``FileWatcher/Configuration``, filled from the `settle_*_ms` and `reconcile_interval_ms` keys.
///
/// A value type built once from the TOML file (``parse(toml:file:environment:)``) and passed to
/// the components at `init`; a SIGHUP builds a new value and ``ConfigurationChanges`` says what
/// differs. All paths are absolute and lexically normalised.
public struct DaemonConfiguration: Sendable, Hashable {
    /// A group allowed to connect, as `allow_groups` names it: by name, resolved to its id when
    /// the configuration is loaded or reloaded (an unknown name is a configuration error, and a
    /// group created later takes a reload), or by numeric id.
    public enum GroupReference: Sendable, Hashable {
        /// A group name and the id the group database gave it at load time.
        case name(String, id: gid_t)
        /// A numeric group id.
        case id(gid_t)

        /// The group's id.
        public var groupID: gid_t {
            switch self {
            case .name(_, let id), .id(let id): return id
            }
        }
    }

    /// The path of the Unix socket the daemon binds when it is not socket-activated.
    public var socketPath: String
    /// The permission bits given to the socket the daemon binds (`socket_mode`, default `0660`).
    public var socketMode: mode_t
    /// Where the daemon keeps state across restarts.
    public var stateDirectory: String
    /// User ids allowed to connect, besides root and the daemon's own user.
    public var allowedUserIDs: [uid_t]
    /// Groups whose members may connect.
    public var allowedGroups: [GroupReference]
    /// Settle delays and the reconciliation interval of the file watcher.
    public var watcher: FileWatcher.Configuration
    /// How often an idle subscriber receives a heartbeat.
    public var heartbeatInterval: Duration
    /// How many recent changesets per watch are kept so a client can resume from its cursor.
    public var historyLength: Int
    /// The most bytes of changesets each watch keeps on disk (`history_max_mib`); the newest one
    /// is kept however large.
    public var historyMaxBytes: Int
    /// The most bytes of each watch's newest changesets kept in memory (`history_cache_mib`);
    /// older ones are read back from disk. The newest is kept however large.
    public var historyCacheBytes: Int
    /// The most bytes buffered for clients (`client_buffer_budget_mib`): unfinished request
    /// lines, replies not yet written and snapshots being sent, each snapshot once.
    public var clientBufferBudget: Int
    /// How long a request line may stay unfinished before its connection is closed
    /// (`partial_line_timeout_ms`).
    public var unfinishedLineTimeout: Duration
    /// The most time a watch keeps the memory for its next version after a read while no save
    /// comes (`spare_memory_max_idle_ms`): saves at a regular interval keep it up to this long,
    /// then it goes back to the system; zero gives it back after every version.
    public var spareMemoryMaxIdle: Duration
    /// Where the metrics endpoint (`GET /metrics`, `/live`, `/ready`) listens (`metrics_listen`);
    /// `nil`, the default: nowhere, unless systemd passes a metrics socket.
    public var metricsListen: MetricsAddress?
    /// Whether a version is flushed to the disk (`fdatasync`) before it is published
    /// (`sync_before_publish`, the default) or right after: written (in the page cache) before,
    /// so that a killed daemon loses nothing, but a machine that stops without the daemon
    /// stopping cleanly makes its watches start a new epoch (``PublishedBeforeSyncMark``).
    public var syncBeforePublish: Bool
    /// The watched files, in the order the configuration lists them; names are unique.
    public var watches: [WatchConfiguration]

    /// Creates a configuration from resolved values; the tunables default to
    /// ``Defaults``.
    public init(
        socketPath: String,
        stateDirectory: String,
        socketMode: mode_t = Defaults.socketMode,
        allowedUserIDs: [uid_t] = [],
        allowedGroups: [GroupReference] = [],
        watcher: FileWatcher.Configuration = FileWatcher.Configuration(),
        heartbeatInterval: Duration = Defaults.heartbeatInterval,
        historyLength: Int = Defaults.historyLength,
        historyMaxBytes: Int = Defaults.historyMaxBytes,
        historyCacheBytes: Int = Defaults.historyCacheBytes,
        clientBufferBudget: Int = Defaults.clientBufferBudget,
        unfinishedLineTimeout: Duration = Defaults.unfinishedLineTimeout,
        spareMemoryMaxIdle: Duration = Defaults.spareMemoryMaxIdle,
        metricsListen: MetricsAddress? = nil,
        syncBeforePublish: Bool = Defaults.syncBeforePublish,
        watches: [WatchConfiguration] = []
    ) {
        self.socketPath = socketPath
        self.stateDirectory = stateDirectory
        self.socketMode = socketMode
        self.allowedUserIDs = allowedUserIDs
        self.allowedGroups = allowedGroups
        self.watcher = watcher
        self.heartbeatInterval = heartbeatInterval
        self.historyLength = historyLength
        self.historyMaxBytes = historyMaxBytes
        self.historyCacheBytes = historyCacheBytes
        self.clientBufferBudget = clientBufferBudget
        self.unfinishedLineTimeout = unfinishedLineTimeout
        self.spareMemoryMaxIdle = spareMemoryMaxIdle
        self.metricsListen = metricsListen
        self.syncBeforePublish = syncBeforePublish
        self.watches = watches
    }

    /// The watch called `name`, if the configuration has one.
    ///
    /// - Complexity: O(*n*) in the number of watches.
    public func watch(named name: String) -> WatchConfiguration? {
        self.watches.first { $0.name == name }
    }
}
