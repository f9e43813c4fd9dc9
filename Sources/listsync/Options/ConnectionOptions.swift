import ArgumentParser
import ListSyncClient
import ListSyncProtocol

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
        Self.configuration(socket: self.socket, reconnect: reconnect)
    }

    /// The client configuration for the socket `socket`, else the one the environment names.
    static func configuration(socket: String?, reconnect: ReconnectPolicy) -> ClientConfiguration {
        let path = socket ?? ClientConfiguration.defaultSocketPath(environment: Self.environment(), userID: getuid())
        return ClientConfiguration(socketPath: path, clientName: "listsync \(ListSyncVersion.current)", reconnect: reconnect)
    }

    /// `arguments` (after the program's name) with a `--socket PATH` (or `--socket=PATH`) given
    /// before the subcommand moved after the subcommand's name, where the subcommand's options
    /// are parsed: `--socket S list` is `list --socket S`. Anything else is left as it is.
    static func movingGlobalOptions(in arguments: [String]) -> [String] {
        var global: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--socket", index + 1 < arguments.count {
                global += arguments[index...(index + 1)]
                index += 2
            } else if argument.hasPrefix("--socket=") {
                global.append(argument)
                index += 1
            } else {
                break
            }
        }
        guard !global.isEmpty, index < arguments.count, !arguments[index].hasPrefix("-") else { return arguments }
        return [arguments[index]] + global + arguments[(index + 1)...]
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
