extension ClientConfiguration {
    /// The daemon's system-wide socket, the one `listsyncd.socket` creates.
    public static let systemSocketPath = "/run/listsyncd/listsyncd.sock"

    /// The socket a client uses when none is named: `$LISTSYNC_SOCKET` when set, else where
    /// `listsyncd` listens by default — `$XDG_RUNTIME_DIR/listsyncd.sock` for a user other than
    /// root with an absolute `XDG_RUNTIME_DIR` (where `systemctl --user`'s socket unit puts it),
    /// ``systemSocketPath`` otherwise.
    ///
    /// The daemon's rule (`DaemonConfiguration.Defaults.socketPath`) is the same; this is the
    /// client's one place for it.
    ///
    /// - Parameters:
    ///   - environment: The process's environment variables, read once by the caller.
    ///   - userID: The process's real user id (`getuid()`).
    public static func defaultSocketPath(environment: [String: String], userID: UInt32) -> String {
        if let explicit = environment["LISTSYNC_SOCKET"], !explicit.isEmpty {
            return explicit
        }
        if userID != 0, let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            var directory = Substring(runtime)
            while directory.count > 1, directory.hasSuffix("/") {
                directory = directory.dropLast()
            }
            return directory == "/" ? "/listsyncd.sock" : directory + "/listsyncd.sock"
        }
        return self.systemSocketPath
    }
}
