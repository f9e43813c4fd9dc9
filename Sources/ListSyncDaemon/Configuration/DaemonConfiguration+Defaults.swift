#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension DaemonConfiguration {
    /// The values used for settings the configuration file leaves out.
    ///
    /// The path defaults depend on who runs the daemon, so they are functions of a
    /// ``ProcessEnvironment`` rather than constants.
    public enum Defaults {
        /// `0660`: the owner and the socket's group may connect.
        public static let socketMode: mode_t = 0o660
        /// A heartbeat to idle subscribers every 15 seconds.
        public static let heartbeatInterval: Duration = .seconds(15)
        /// 1024 changesets of history per watch.
        public static let historyLength = 1024
        /// 256 MiB of changesets per watch on disk at most (`history_max_mib`).
        public static let historyMaxMiB = 256
        public static let historyMaxBytes = historyMaxMiB << 20
        /// 16 MiB of each watch's newest changesets in memory at most (`history_cache_mib`).
        public static let historyCacheMiB = 16
        public static let historyCacheBytes = historyCacheMiB << 20
        /// 256 MiB buffered for clients at most.
        public static let clientBufferBudget = 256 << 20
        /// A request line must be finished within 10 seconds of its first byte.
        public static let unfinishedLineTimeout: Duration = .seconds(10)
        /// A watch keeps the memory for its next version at most 30 seconds after a read
        /// (`spare_memory_max_idle_ms`): saves up to 10 s apart find it.
        public static let spareMemoryMaxIdle: Duration = .seconds(30)
        /// Every version is durable before any client sees it (`sync_before_publish = true`).
        public static let syncBeforePublish = true
        /// The system-wide socket, the one `listsyncd.socket` creates.
        public static let systemSocketPath = "/run/listsyncd/listsyncd.sock"
        /// The system-wide state directory, the one `StateDirectory=listsyncd` creates.
        public static let systemStateDirectory = "/var/lib/listsyncd"

        /// The socket path when the configuration names none.
        ///
        /// Root gets ``systemSocketPath``; another user gets `$XDG_RUNTIME_DIR/listsyncd.sock`
        /// (where `systemctl --user`'s socket unit puts it). A non-root process without an
        /// absolute `XDG_RUNTIME_DIR` — typically the system service's own `listsyncd` user —
        /// also gets ``systemSocketPath``.
        public static func socketPath(environment: ProcessEnvironment) -> String {
            if environment.userID != 0, let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
                return ConfigurationPath.normalize(runtime + "/listsyncd.sock")
            }
            return systemSocketPath
        }

        /// The state directory when the configuration names none.
        ///
        /// In order: the first entry of `$STATE_DIRECTORY` (set by systemd's `StateDirectory=`,
        /// for the system and the user unit alike); for root ``systemStateDirectory``; for another
        /// user `$XDG_STATE_HOME/listsyncd` or `$HOME/.local/state/listsyncd`; finally
        /// ``systemStateDirectory``. Relative values are ignored, as the XDG specification asks.
        public static func stateDirectory(environment: ProcessEnvironment) -> String {
            func absolute(_ name: String) -> String? {
                guard let value = environment[name], value.hasPrefix("/") else { return nil }
                return value
            }
            if let fromSystemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, fromSystemd.hasPrefix("/") {
                return ConfigurationPath.normalize(String(fromSystemd))
            }
            guard environment.userID != 0 else { return systemStateDirectory }
            if let stateHome = absolute("XDG_STATE_HOME") {
                return ConfigurationPath.normalize(stateHome + "/listsyncd")
            }
            if let home = absolute("HOME") {
                return ConfigurationPath.normalize(home + "/.local/state/listsyncd")
            }
            return systemStateDirectory
        }
    }
}
