/// What a reload (SIGHUP) changes: which watches start, end, restart or carry on, and which
/// daemon-wide settings differ.
///
/// Watches are matched by name. An unchanged watch keeps its subscribers and sequence; a changed
/// one must be rebuilt (its ``WatchChange/fields`` say what differs, so the daemon can decide how
/// much to redo); an added one starts; a removed one ends its subscriptions with a status message.
public struct ConfigurationChanges: Sendable, Hashable {
    /// A watch whose name stayed but whose settings differ.
    public struct WatchChange: Sendable, Hashable {
        /// The watch as it was.
        public var old: WatchConfiguration
        /// The watch as it is now.
        public var new: WatchConfiguration
        /// The settings that differ; never empty.
        public var fields: Set<WatchConfiguration.Field>
    }

    /// Watches only in the new configuration, in its order.
    public var added: [WatchConfiguration]
    /// Watches only in the old configuration, in its order.
    public var removed: [WatchConfiguration]
    /// Watches in both with different settings, in the new configuration's order.
    public var changed: [WatchChange]
    /// Watches in both with equal settings, in the new configuration's order.
    public var unchanged: [WatchConfiguration]
    /// The daemon-wide settings that differ.
    public var settings: Set<DaemonConfiguration.Setting>

    /// Compares the configuration in force with the one just loaded.
    ///
    /// - Complexity: O(*n* + *m*) in the numbers of watches.
    public init(from old: DaemonConfiguration, to new: DaemonConfiguration) {
        let oldByName = Dictionary(old.watches.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newNames = Set(new.watches.map(\.name))
        self.added = []
        self.changed = []
        self.unchanged = []
        for watch in new.watches {
            guard let previous = oldByName[watch.name] else {
                self.added.append(watch)
                continue
            }
            let fields = watch.fields(differingFrom: previous)
            if fields.isEmpty {
                self.unchanged.append(watch)
            } else {
                self.changed.append(WatchChange(old: previous, new: watch, fields: fields))
            }
        }
        self.removed = old.watches.filter { !newNames.contains($0.name) }
        self.settings = Set(DaemonConfiguration.Setting.allCases.filter { !$0.isEqual(in: old, and: new) })
    }

    /// Whether the reload changes nothing at all.
    public var isEmpty: Bool {
        self.added.isEmpty && self.removed.isEmpty && self.changed.isEmpty && self.settings.isEmpty
    }
}

extension WatchConfiguration {
    /// A setting of a watch, as ``ConfigurationChanges`` reports it.
    public enum Field: Sendable, Hashable, CaseIterable {
        /// ``WatchConfiguration/path``.
        case path
        /// ``WatchConfiguration/format``.
        case format
        /// ``WatchConfiguration/key``.
        case key
        /// ``WatchConfiguration/sectionBy``.
        case sectionBy
        /// ``WatchConfiguration/ignore``.
        case ignore
        /// ``WatchConfiguration/delimiter``.
        case delimiter
        /// ``WatchConfiguration/raggedRows``.
        case raggedRows
        /// ``WatchConfiguration/publishWhileWriting``.
        case publishWhileWriting

        /// The settings that say how records are identified: versions read before and after a
        /// change of one of them cannot be diffed record by record, so the watch starts a new
        /// epoch. (A new path, delimiter, `ignore` or `ragged_rows` changes values, not identities.)
        public static let identities: Set<Field> = [.format, .key, .sectionBy]

        /// The setting's key in a `[[watch]]` table, as logs name it.
        public var configurationKey: String {
            switch self {
            case .path: return "path"
            case .format: return "format"
            case .key: return "key"
            case .sectionBy: return "section_by"
            case .ignore: return "ignore"
            case .delimiter: return "delimiter"
            case .raggedRows: return "ragged_rows"
            case .publishWhileWriting: return "publish_while_writing"
            }
        }

        /// The configuration keys of `fields`, in declaration order, comma-separated:
        /// `key,section_by`.
        public static func configurationKeys(_ fields: Set<Field>) -> String {
            Self.allCases.filter(fields.contains).map(\.configurationKey).joined(separator: ",")
        }
    }

    /// The settings in which `self` and `other` differ (the name is not compared).
    public func fields(differingFrom other: WatchConfiguration) -> Set<Field> {
        Set(
            Field.allCases.filter { field in
                switch field {
                case .path: return self.path != other.path
                case .format: return self.format != other.format
                case .key: return self.key != other.key
                case .sectionBy: return self.sectionBy != other.sectionBy
                case .ignore: return self.ignore != other.ignore
                case .delimiter: return self.delimiter != other.delimiter
                case .raggedRows: return self.raggedRows != other.raggedRows
                case .publishWhileWriting: return self.publishWhileWriting != other.publishWhileWriting
                }
            }
        )
    }
}

extension DaemonConfiguration {
    /// This configuration, just loaded by a reload, as a daemon running `running` applies it:
    /// the settings only a restart can change (``Setting/appliesOnReload``) keep their running
    /// values, so that what starts after the reload — an added watch's state, above all — uses
    /// the state directory the daemon has locked, not one it merely read in the file.
    public func inForce(replacing running: DaemonConfiguration) -> DaemonConfiguration {
        var configuration = self
        for setting in Setting.allCases where !setting.appliesOnReload {
            setting.keep(running, in: &configuration)
        }
        return configuration
    }
}

extension DaemonConfiguration {
    /// A daemon-wide setting, as ``ConfigurationChanges`` reports it.
    public enum Setting: Sendable, Hashable, CaseIterable {
        /// ``DaemonConfiguration/socketPath``.
        case socketPath
        /// ``DaemonConfiguration/socketMode``.
        case socketMode
        /// ``DaemonConfiguration/stateDirectory``.
        case stateDirectory
        /// ``DaemonConfiguration/allowedUserIDs``.
        case allowedUserIDs
        /// ``DaemonConfiguration/allowedGroups``.
        case allowedGroups
        /// ``DaemonConfiguration/watcher``: settle delays and reconciliation interval.
        case watcher
        /// ``DaemonConfiguration/heartbeatInterval``.
        case heartbeatInterval
        /// ``DaemonConfiguration/historyLength`` and ``DaemonConfiguration/historyMaxBytes``.
        case historyLength
        /// ``DaemonConfiguration/clientBufferBudget`` and ``DaemonConfiguration/unfinishedLineTimeout``.
        case clientBuffers
        /// ``DaemonConfiguration/historyCacheBytes``.
        case historyCache
        /// ``DaemonConfiguration/metricsListen``.
        case metricsListen
        /// ``DaemonConfiguration/spareMemoryMaxIdle``.
        case spareMemory
        /// ``DaemonConfiguration/syncBeforePublish``.
        case syncBeforePublish

        /// The setting's key at the top of the configuration file, as logs name it (the watcher's
        /// timing has several: `settle_*_ms` and `reconcile_interval_ms`).
        public var configurationKey: String {
            switch self {
            case .socketPath: return "socket"
            case .socketMode: return "socket_mode"
            case .stateDirectory: return "state_directory"
            case .allowedUserIDs: return "allow_uids"
            case .allowedGroups: return "allow_groups"
            case .watcher: return "settle_*_ms,reconcile_interval_ms"
            case .heartbeatInterval: return "heartbeat_interval_ms"
            case .historyLength: return "history_length,history_max_mib"
            case .clientBuffers: return "client_buffer_budget_mib,partial_line_timeout_ms"
            case .historyCache: return "history_cache_mib"
            case .metricsListen: return "metrics_listen"
            case .spareMemory: return "spare_memory_max_idle_ms"
            case .syncBeforePublish: return "sync_before_publish"
            }
        }

        /// Whether a running daemon can apply a new value of this setting, or only a restart can
        /// (the listening socket, the state directory, the file watcher and the client-buffer
        /// budget are set up once).
        public var appliesOnReload: Bool {
            switch self {
            case .socketPath, .socketMode, .stateDirectory, .watcher, .clientBuffers, .historyCache, .metricsListen, .syncBeforePublish:
                return false
            case .allowedUserIDs, .allowedGroups, .heartbeatInterval, .historyLength, .spareMemory:
                return true
            }
        }

        /// Sets this setting of `configuration` to its value in `running`.
        fileprivate func keep(_ running: DaemonConfiguration, in configuration: inout DaemonConfiguration) {
            switch self {
            case .socketPath: configuration.socketPath = running.socketPath
            case .socketMode: configuration.socketMode = running.socketMode
            case .stateDirectory: configuration.stateDirectory = running.stateDirectory
            case .allowedUserIDs: configuration.allowedUserIDs = running.allowedUserIDs
            case .allowedGroups: configuration.allowedGroups = running.allowedGroups
            case .watcher: configuration.watcher = running.watcher
            case .heartbeatInterval: configuration.heartbeatInterval = running.heartbeatInterval
            case .historyLength:
                configuration.historyLength = running.historyLength
                configuration.historyMaxBytes = running.historyMaxBytes
            case .clientBuffers:
                configuration.clientBufferBudget = running.clientBufferBudget
                configuration.unfinishedLineTimeout = running.unfinishedLineTimeout
            case .historyCache: configuration.historyCacheBytes = running.historyCacheBytes
            case .metricsListen: configuration.metricsListen = running.metricsListen
            case .spareMemory: configuration.spareMemoryMaxIdle = running.spareMemoryMaxIdle
            case .syncBeforePublish: configuration.syncBeforePublish = running.syncBeforePublish
            }
        }

        fileprivate func isEqual(in old: DaemonConfiguration, and new: DaemonConfiguration) -> Bool {
            switch self {
            case .socketPath: return old.socketPath == new.socketPath
            case .socketMode: return old.socketMode == new.socketMode
            case .stateDirectory: return old.stateDirectory == new.stateDirectory
            case .allowedUserIDs: return old.allowedUserIDs == new.allowedUserIDs
            case .allowedGroups: return old.allowedGroups == new.allowedGroups
            case .watcher: return old.watcher == new.watcher
            case .heartbeatInterval: return old.heartbeatInterval == new.heartbeatInterval
            case .historyLength: return old.historyLength == new.historyLength && old.historyMaxBytes == new.historyMaxBytes
            case .clientBuffers:
                return old.clientBufferBudget == new.clientBufferBudget && old.unfinishedLineTimeout == new.unfinishedLineTimeout
            case .historyCache: return old.historyCacheBytes == new.historyCacheBytes
            case .metricsListen: return old.metricsListen == new.metricsListen
            case .spareMemory: return old.spareMemoryMaxIdle == new.spareMemoryMaxIdle
            case .syncBeforePublish: return old.syncBeforePublish == new.syncBeforePublish
            }
        }
    }
}
