#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A state change the daemon reports to systemd (see `sd_notify(3)`).
public enum SystemdNotification: Sendable, Hashable {
    /// Start-up is finished (every watch is loaded) or a reload is complete: `READY=1`.
    case ready
    /// A reload (SIGHUP) began at the given `CLOCK_MONOTONIC` time, in microseconds:
    /// `RELOADING=1` with `MONOTONIC_USEC=`, which newer systemd requires to match the reload.
    case reloading(monotonicMicroseconds: UInt64)
    /// Shutdown began: `STOPPING=1`.
    case stopping
    /// The service is alive: `WATCHDOG=1`, due every half `WATCHDOG_USEC`.
    case watchdog
    /// A one-line human-readable status, shown by `systemctl status`: `STATUS=`.
    case status(String)

    /// `RELOADING=1` stamped with the current `CLOCK_MONOTONIC` time.
    public static func reloadingNow() -> SystemdNotification {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return .reloading(monotonicMicroseconds: UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000)
    }

    /// The `NAME=value` lines of this notification. A status's line breaks become spaces: a
    /// newline would end the assignment and start a bogus one.
    public var assignments: [String] {
        switch self {
        case .ready:
            return ["READY=1"]
        case .reloading(let microseconds):
            return ["RELOADING=1", "MONOTONIC_USEC=\(microseconds)"]
        case .stopping:
            return ["STOPPING=1"]
        case .watchdog:
            return ["WATCHDOG=1"]
        case .status(let text):
            let oneLine = text.map { $0.isNewline ? " " : String($0) }.joined()
            return ["STATUS=\(oneLine)"]
        }
    }
}
