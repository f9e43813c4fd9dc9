import Glibc
import Testing
import ListSyncTestSupport

@testable import ListSyncSink

/// Connection settings read as libpq reads them, and never a password in a message.
@Suite struct PostgresSettingsTests {
    @Test func theURLComesFirstThenTheEnvironmentThenTheDefaults() throws {
        let environment = ["PGHOST": "envhost", "PGPORT": "6000", "PGUSER": "envuser", "PGDATABASE": "envdb", "USER": "me"]
        let full = try PostgresSettings(url: "postgres://app:s%40cret@db.example:5433/warehouse?sslmode=require", environment: environment)
        #expect(full.host == "db.example" && full.port == 5433 && full.user == "app" && full.password == "s@cret")
        #expect(full.database == "warehouse" && full.sslMode == "require")
        let partial = try PostgresSettings(url: "postgresql:///stock", environment: environment)
        #expect(partial.host == "envhost" && partial.port == 6000 && partial.user == "envuser" && partial.database == "stock")
        let socket = try PostgresSettings(url: "postgres://postgres@/postgres?host=/tmp/pg%20dir", environment: [:])
        #expect(socket.isUnixSocket && socket.socketPath == "/tmp/pg dir/.s.PGSQL.5432")
        let defaults = try PostgresSettings(url: nil, environment: ["USER": "me"])
        #expect(defaults.host == "/var/run/postgresql" && defaults.user == "me" && defaults.database == "me" && defaults.password == nil)
    }

    @Test func aURLThatDoesNotReadIsRefused() {
        #expect(throws: SinkError.self) { try PostgresSettings(url: "mysql://x", environment: [:]) }
        #expect(throws: SinkError.self) { try PostgresSettings(url: "postgres://h:99999/db", environment: [:]) }
        #expect(throws: SinkError.self) { try PostgresSettings(url: "postgres://h/db?sslmode=verify-full", environment: [:]) }
    }

    /// The password file's first matching line gives the password, but only when no one but its
    /// owner can read the file.
    @Test func thePasswordFile() throws {
        let path = "/tmp/listsync-pgpass-\(getpid())"
        defer { unlink(path) }
        try FileContent.write("# comment\nother:*:*:*:no\nlocalhost:5432:*:app:pa\\:ss\n*:*:*:*:fallback\n", to: path)
        chmod(path, 0o600)
        let environment = ["PGPASSFILE": path]
        #expect(try PostgresSettings(url: "postgres://app@/db?host=/run/pg", environment: environment).password == "pa:ss")
        #expect(try PostgresSettings(url: "postgres://other@remote/db", environment: environment).password == "fallback")
        #expect(try PostgresSettings(url: "postgres://app:given@remote/db", environment: environment).password == "given")
        chmod(path, 0o644)
        #expect(try PostgresSettings(url: "postgres://app@/db?host=/run/pg", environment: environment).password == nil)
    }

    @Test func theDescriptionLeavesThePasswordOut() throws {
        let settings = try PostgresSettings(url: "postgres://app:topsecret@db:5432/w", environment: [:])
        #expect(!settings.description.contains("topsecret"))
        #expect(settings.description == "app@db:5432/w")
    }
}
