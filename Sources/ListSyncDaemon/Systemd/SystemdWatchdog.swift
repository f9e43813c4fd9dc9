/// The watchdog systemd runs for the service (`WatchdogSec=`), as `$WATCHDOG_USEC` describes it.
///
/// The daemon must send ``SystemdNotification/watchdog`` at least once per ``timeout``; it pings
/// every ``pingInterval`` (half the timeout, as `sd_watchdog_enabled(3)` advises) and only while
/// its watcher thread is alive, so a hung watcher gets the service restarted.
public struct SystemdWatchdog: Sendable, Hashable {
    /// How long systemd waits for a ping before it considers the service hung.
    public let timeout: Duration

    /// How often to ping: half of ``timeout``.
    public var pingInterval: Duration { self.timeout / 2 }

    /// A watchdog with the given timeout.
    public init(timeout: Duration) {
        self.timeout = timeout
    }

    /// The watchdog `WATCHDOG_USEC` asks for; `nil` when it is unset or when `WATCHDOG_PID`
    /// names another process (the variables were inherited, not meant for us).
    ///
    /// - Throws: ``SystemdError/invalidVariable(name:value:reason:)`` for a value that is not a
    ///   positive integer.
    public init?(environment: ProcessEnvironment) throws(SystemdError) {
        guard let text = environment["WATCHDOG_USEC"] else { return nil }
        if let pidText = environment["WATCHDOG_PID"] {
            guard let pid = Int32(pidText), pid > 0 else {
                throw .invalidVariable(name: "WATCHDOG_PID", value: pidText, reason: "not a process id")
            }
            guard pid == environment.processID else { return nil }
        }
        guard let microseconds = Int64(text), microseconds > 0 else {
            throw .invalidVariable(name: "WATCHDOG_USEC", value: text, reason: "not a positive number of microseconds")
        }
        self.init(timeout: .microseconds(microseconds))
    }
}
