import ListSyncClient
import ListSyncProtocol

/// How the watch reads its file, as `listsync list` says it — format, sections, key — carried in
/// every stream message's headers (`ListSync-Format`, `ListSync-Sectioned`, `ListSync-Key`), so
/// that a table sink fed by the stream (`sink sqlite|postgres --from nats://…`) lays its table
/// out as a socket-fed one does, without the daemon.
public struct JetStreamWatchLayout: Sendable, Hashable {
    /// The format: `csv`, `tsv`, `json` or `ndjson`.
    public var format: String
    /// Whether the list is sectioned.
    public var sectioned: Bool
    /// The watch's key fields, as `list` names them; empty when it has none.
    public var key: [String]

    /// A layout.
    public init(format: String, sectioned: Bool, key: [String]) {
        self.format = format
        self.sectioned = sectioned
        self.key = key
    }

    /// The layout of a watch as the daemon's `list` reply describes it.
    public init(_ summary: WatchSummary) {
        self.init(format: summary.format, sectioned: summary.sectioned, key: summary.key)
    }

    /// The layout of `watch` as the daemon `client` talks to says it; `nil` when the daemon does
    /// not answer or has no such watch.
    public static func asked(of client: ListSyncClient, watch: String) async -> JetStreamWatchLayout? {
        (try? await client.watches().first { $0.name == watch }).flatMap { $0.map(JetStreamWatchLayout.init) }
    }

    /// The headers that carry it: `ListSync-Format` always, `ListSync-Sectioned: true` for a
    /// sectioned list, `ListSync-Key` (the fields, each with `%` and `,` written `%25` and `%2C`,
    /// joined by `,`) for a watch with a key.
    var headers: [(String, String)] {
        var headers = [(JetStreamEnvelope.Header.format, self.format)]
        if self.sectioned { headers.append((JetStreamEnvelope.Header.sectioned, "true")) }
        if !self.key.isEmpty {
            let fields = self.key.map { $0.replacingAll("%", with: "%25").replacingAll(",", with: "%2C") }
            headers.append((JetStreamEnvelope.Header.key, fields.joined(separator: ",")))
        }
        return headers
    }

    /// The layout `headers` carry; `nil` without `ListSync-Format` (a message published by a
    /// sink older than these headers).
    init?(headers: [String: String]) {
        guard let format = headers[JetStreamEnvelope.Header.format], !format.isEmpty else { return nil }
        let key = headers[JetStreamEnvelope.Header.key].map { text in
            text.split(separator: ",", omittingEmptySubsequences: false).map { Self.unescaped(String($0)) }
        }
        self.init(format: format, sectioned: headers[JetStreamEnvelope.Header.sectioned] == "true", key: key ?? [])
    }

    /// A key field as written in `ListSync-Key`, with `%2C` and `%25` read back as `,` and `%`.
    private static func unescaped(_ field: String) -> String {
        var result = ""
        var rest = field[...]
        while let character = rest.first {
            if rest.hasPrefix("%2C") {
                result.append(",")
                rest = rest.dropFirst(3)
            } else if rest.hasPrefix("%25") {
                result.append("%")
                rest = rest.dropFirst(3)
            } else {
                result.append(character)
                rest = rest.dropFirst()
            }
        }
        return result
    }
}
