#if canImport(Glibc)
import Glibc
#endif

/// Where and as whom to connect to PostgreSQL, read the way libpq reads it: a connection URL
/// (`postgres://user:password@host:port/database?host=/socket/dir&sslmode=disable`), then the
/// `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE`, `PGSSLMODE` environment variables for
/// what the URL leaves out, then the password file (`PGPASSFILE`, default `~/.pgpass`, ignored
/// unless only its owner can read it) for a password, then libpq's defaults: the Unix socket in
/// `/var/run/postgresql`, port 5432, the user's login name, a database named like the user.
///
/// The password is never part of ``description``.
public struct PostgresSettings: Sendable, Hashable, CustomStringConvertible {
    /// A host name, or a Unix socket directory when it starts with `/`.
    public var host: String
    /// The port (also the socket file's suffix).
    public var port: Int
    /// The user name.
    public var user: String
    /// The password; `nil` for none.
    public var password: String?
    /// The database.
    public var database: String
    /// libpq's `sslmode` for TCP connections: `disable`, `prefer` (the default) or `require`.
    public var sslMode: String
    /// Where each setting came from, by libpq's parameter name (`host`, `port`, `user`,
    /// `dbname`, `sslmode`, `password`): `--url`, the `PG*` variable, the password file or
    /// `the default` — what a failure says, so that a stray `PGHOST` is found.
    public var sources: [String: String] = [:]

    /// Reads `url` (may be `nil`), `environment` and the password file.
    ///
    /// - Throws: ``SinkError/layout(_:)`` for a URL that does not read, with what is wrong.
    public init(url: String?, environment: [String: String]) throws(SinkError) {
        var parts: [String: String] = [:]
        if let url {
            do {
                parts = try Self.parse(url)
            } catch {
                throw .layout("--url: \(error)")
            }
        }
        var sources: [String: String] = [:]
        /// The setting `name`: from the URL, else the variable, else `fallback`.
        func setting(_ name: String, _ variable: String, _ fallback: @autoclosure () -> String) -> String {
            if let value = parts[name] {
                sources[name] = "--url"
                return value
            }
            if let value = environment[variable] {
                sources[name] = variable
                return value
            }
            sources[name] = "the default"
            return fallback()
        }
        let login = environment["USER"] ?? environment["LOGNAME"] ?? "postgres"
        self.host = setting("host", "PGHOST", "/var/run/postgresql")
        let portText = setting("port", "PGPORT", "5432")
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw .layout("not a port: \(portText) (from \(sources["port"] ?? "the default"))")
        }
        self.port = port
        self.user = setting("user", "PGUSER", login)
        let user = self.user
        self.database = setting("dbname", "PGDATABASE", user)
        self.sslMode = setting("sslmode", "PGSSLMODE", "prefer")
        guard ["disable", "allow", "prefer", "require"].contains(self.sslMode) else {
            throw .layout("sslmode \(self.sslMode) (from \(sources["sslmode"] ?? "the default")) is not supported (disable, prefer, require)")
        }
        let passfile = environment["PGPASSFILE"] ?? environment["HOME"].map { $0 + "/.pgpass" }
        if let password = parts["password"] {
            self.password = password
            sources["password"] = "--url"
        } else if let password = environment["PGPASSWORD"] {
            self.password = password
            sources["password"] = "PGPASSWORD"
        } else {
            self.password = nil
            self.sources = sources
            self.password = passfile.flatMap { self.passwordFromFile($0) }
            sources["password"] = self.password == nil ? "none" : "the password file \(passfile ?? "")"
        }
        self.sources = sources
    }

    /// Where the sink connects and where each part of that came from: the socket file (or host
    /// and port), the user and database, each with its source — never the password.
    public var connectionDescription: String {
        func from(_ name: String) -> String { self.sources[name] ?? "the default" }
        let place =
            self.isUnixSocket
            ? "socket \(self.socketPath) (directory from \(from("host")), port from \(from("port")))"
            : "\(self.host):\(self.port) (host from \(from("host")), port from \(from("port")))"
        return "\(self.description): \(place), user from \(from("user")), database from \(from("dbname"))"
    }

    /// Whether ``host`` names a Unix socket directory.
    public var isUnixSocket: Bool { self.host.hasPrefix("/") }

    /// The socket file of a Unix socket connection.
    public var socketPath: String { self.host + "/.s.PGSQL.\(self.port)" }

    /// `user@host:port/database`, without the password.
    public var description: String { "\(self.user)@\(self.host):\(self.port)/\(self.database)" }

    /// The URL's parts, by libpq's parameter names, percent-decoded.
    static func parse(_ url: String) throws(SinkError) -> [String: String] {
        var rest = Substring(url)
        guard let scheme = rest.firstRange(of: "://"), ["postgres", "postgresql"].contains(rest[..<scheme.lowerBound]) else {
            throw .layout("not a postgres:// URL")
        }
        rest = rest[scheme.upperBound...]
        var parts: [String: String] = [:]
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(separator: "&") {
                let field = pair.split(separator: "=", maxSplits: 1)
                parts[try Self.decode(field[0])] = field.count > 1 ? try Self.decode(field[1]) : ""
            }
            rest = rest[..<question]
        }
        if let slash = rest.firstIndex(of: "/") {
            let database = rest[rest.index(after: slash)...]
            if !database.isEmpty, parts["dbname"] == nil { parts["dbname"] = try Self.decode(database) }
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            if !credentials[0].isEmpty, parts["user"] == nil { parts["user"] = try Self.decode(credentials[0]) }
            if credentials.count > 1, parts["password"] == nil { parts["password"] = try Self.decode(credentials[1]) }
            rest = rest[rest.index(after: at)...]
        }
        if let colon = rest.lastIndex(of: ":"), !rest.hasPrefix("[") || rest[..<colon].hasSuffix("]") {
            if parts["port"] == nil { parts["port"] = String(rest[rest.index(after: colon)...]) }
            rest = rest[..<colon]
        }
        if !rest.isEmpty, parts["host"] == nil { parts["host"] = try Self.decode(rest) }
        return parts
    }

    /// `%XX` sequences decoded.
    private static func decode(_ text: Substring) throws(SinkError) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(), let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { throw .layout("a % in the URL is not followed by two hex digits") }
            bytes.append(value)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The password of the first line of the password file that matches, as libpq reads it
    /// (`host:port:database:user:password`, `*` matching anything, `\` escaping; `localhost`
    /// matches a Unix socket connection).
    private func passwordFromFile(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o077 == 0, let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        let host = self.isUnixSocket ? "localhost" : self.host
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" }) where !line.hasPrefix("#") {
            var fields: [String] = [""]
            var escaped = false
            for character in line {
                if escaped {
                    fields[fields.count - 1].append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == ":", fields.count < 5 {
                    fields.append("")
                } else {
                    fields[fields.count - 1].append(character)
                }
            }
            guard fields.count == 5 else { continue }
            let wanted = [host, String(self.port), self.database, self.user]
            if zip(fields, wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }
}
