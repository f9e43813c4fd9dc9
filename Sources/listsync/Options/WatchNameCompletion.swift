import ArgumentParser
import ListSyncClient

/// Shell completion of a watch's name (bash, zsh, fish; `listsync --generate-completion-script
/// SHELL`): the names the daemon has, asked on the socket the command line names with
/// `--socket`, else the default one. Nothing — no message, no delay beyond a second — when the
/// daemon cannot be reached.
enum WatchNameCompletion {
    /// The completion of a watch-name argument.
    static let kind = CompletionKind.custom { words, _, prefix in
        await WatchNameCompletion.names(words: words, prefix: prefix)
    }

    /// The daemon's watch names that start with `prefix`, in the daemon's order.
    static func names(words: [String], prefix: String) async -> [String] {
        let socket = words.socketValue
        let client = ListSyncClient(configuration: ConnectionOptions.configuration(socket: socket, reconnect: .never))
        let names = await withTaskGroup(of: [String]?.self) { group in
            group.addTask { try? await client.watches().map(\.name) }
            group.addTask {
                try? await Task.sleep(for: .seconds(1))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
        return names.filter { $0.hasPrefix(prefix) }
    }
}

extension [String] {
    /// The value of the last `--socket PATH` or `--socket=PATH` among these words.
    fileprivate var socketValue: String? {
        var value: String?
        for (index, word) in self.enumerated() {
            if word == "--socket", index + 1 < self.count {
                value = self[index + 1]
            } else if word.hasPrefix("--socket=") {
                value = String(word.dropFirst("--socket=".count))
            }
        }
        return value
    }
}
