import ArgumentParser
import ListSyncClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the daemon listens: the option every command that talks to `listsyncd` shares.
struct ConnectionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The daemon's socket. Default: $LISTSYNC_SOCKET, else $XDG_RUNTIME_DIR/listsyncd.sock (not root), else /run/listsyncd/listsyncd.sock.",
            valueName: "path"))
    var socket: String?

    /// The client configuration for this command: the socket from the option, else from the
    /// environment, read here once.
    func configuration(reconnect: ReconnectPolicy) -> ClientConfiguration {
        let path = self.socket ?? ClientConfiguration.defaultSocketPath(environment: Self.environment(), userID: getuid())
        return ClientConfiguration(socketPath: path, clientName: "listsync 0.1", reconnect: reconnect)
    }

    /// The environment variables the socket default depends on.
    private static func environment() -> [String: String] {
        var variables: [String: String] = [:]
        for name in ["LISTSYNC_SOCKET", "XDG_RUNTIME_DIR"] {
            if let value = getenv(name) { variables[name] = String(cString: value) }
        }
        return variables
    }
}
