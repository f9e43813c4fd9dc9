#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The listening sockets systemd passed to the process (`sd_listen_fds_with_names(3)`), read
/// from `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES`.
///
/// Parsing is pure — the environment comes in as a value — so every case is testable; making a
/// descriptor ready for SwiftNIO is ``ListeningSocket/adopt()``; removing the variables from the
/// process environment (so child processes don't think the sockets are theirs) is
/// ``removeEnvironmentVariables()``, called once from `main`.
public struct SocketActivation: Sendable, Hashable {
    /// One passed socket.
    public struct ListeningSocket: Sendable, Hashable {
        /// The file descriptor, counted from ``SocketActivation/firstFileDescriptor``.
        public var fileDescriptor: Int32
        /// Its name from `FileDescriptorName=` (`listsyncd.socket` sets `api`), or `unknown`.
        public var name: String

        /// Describes a passed socket.
        public init(fileDescriptor: Int32, name: String) {
            self.fileDescriptor = fileDescriptor
            self.name = name
        }
    }

    /// The first passed descriptor, `SD_LISTEN_FDS_START`: 0 to 2 are the standard streams.
    public static let firstFileDescriptor: Int32 = 3
    /// The variables that describe passed sockets.
    public static let environmentVariableNames = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]
    /// systemd caps the number of passed descriptors far below this; more is a corrupt variable.
    private static let maximumCount = 4096

    /// The passed sockets, in descriptor order; never empty.
    public var sockets: [ListeningSocket]

    /// Describes passed sockets.
    public init(sockets: [ListeningSocket]) {
        self.sockets = sockets
    }

    /// The sockets passed to this process; `nil` when there are none — no `LISTEN_PID`, a
    /// `LISTEN_PID` of another process (inherited, not ours), or `LISTEN_FDS` absent or 0 — so
    /// the daemon binds its configured path instead.
    ///
    /// - Throws: ``SystemdError/invalidVariable(name:value:reason:)`` for malformed values, or
    ///   a `LISTEN_FDNAMES` whose name count differs from `LISTEN_FDS`.
    public init?(environment: ProcessEnvironment) throws(SystemdError) {
        guard let pidText = environment["LISTEN_PID"] else { return nil }
        guard let pid = Int32(pidText), pid > 0 else {
            throw .invalidVariable(name: "LISTEN_PID", value: pidText, reason: "not a process id")
        }
        guard pid == environment.processID, let countText = environment["LISTEN_FDS"] else { return nil }
        guard let count = Int(countText), (0...Self.maximumCount).contains(count) else {
            throw .invalidVariable(name: "LISTEN_FDS", value: countText, reason: "not a descriptor count")
        }
        guard count > 0 else { return nil }
        var names = [String](repeating: "unknown", count: count)
        if let namesText = environment["LISTEN_FDNAMES"] {
            let given = namesText.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard given.count == count else {
                throw .invalidVariable(
                    name: "LISTEN_FDNAMES",
                    value: namesText,
                    reason: "\(given.count) names for \(count) descriptors"
                )
            }
            names = given
        }
        self.init(
            sockets: names.enumerated().map { index, name in
                ListeningSocket(fileDescriptor: Self.firstFileDescriptor + Int32(index), name: name)
            }
        )
    }

    /// The socket named `name` (`FileDescriptorName=`), if one was passed.
    public func socket(named name: String) -> ListeningSocket? {
        self.sockets.first { $0.name == name }
    }

    /// Removes ``environmentVariableNames`` from the process environment.
    ///
    /// Call once from `main`, after reading the ``ProcessEnvironment``: a child process must not
    /// mistake the descriptors for its own.
    public static func removeEnvironmentVariables() {
        for name in Self.environmentVariableNames {
            unsetenv(name)
        }
    }
}
