/// What systemd gave the daemon, read once from the environment in `main`: where to send
/// notifications, the watchdog's timeout, and a socket-activated listening descriptor.
public struct SystemdIntegration: Sendable {
    /// Sends `READY=1`, `STATUS=`, `RELOADING=1`, `STOPPING=1` and `WATCHDOG=1`; `nil` when the
    /// daemon was not started with `Type=notify`.
    public var notifier: SystemdNotifier?
    /// The watchdog, when `WatchdogSec=` is set.
    public var watchdog: SystemdWatchdog?
    /// The listening socket systemd passed (already checked by ``SocketActivation/ListeningSocket/adopt()``);
    /// `nil`: bind the configured path.
    public var listeningDescriptor: Int32?
    /// The metrics socket systemd passed (`listsyncd-metrics.socket`, named `metrics`), already
    /// checked; it wins over `metrics_listen`.
    public var metricsDescriptor: Int32?

    /// Describes what systemd gave.
    public init(
        notifier: SystemdNotifier? = nil, watchdog: SystemdWatchdog? = nil, listeningDescriptor: Int32? = nil, metricsDescriptor: Int32? = nil
    ) {
        self.notifier = notifier
        self.watchdog = watchdog
        self.listeningDescriptor = listeningDescriptor
        self.metricsDescriptor = metricsDescriptor
    }
}
