import Glibc
import Testing
import ListSyncTestSupport

@testable import ListSyncSink

/// A real PostgreSQL server for the tests: `initdb` and `pg_ctl` in a scratch directory, run as
/// the `postgres` user when the tests run as root, listening on a Unix socket in that directory
/// only, with trust authentication. Stopped (immediately) and removed when the value goes away.
final class PostgresServer {
    let directory: String
    private let binaries: String

    /// The URL a sink connects with.
    var url: String { "postgres://postgres@/postgres?host=\(self.directory)" }

    /// Creates and starts a server; fails with what to install when PostgreSQL is missing.
    init() async throws {
        guard let binaries = Self.binaryDirectory() else {
            throw TestFailure("no PostgreSQL server binaries (initdb, pg_ctl): run scripts/bootstrap, which installs postgresql")
        }
        self.binaries = binaries
        var template = Array("/tmp/listsync-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp: \(String(cString: strerror(errno)))") }
        self.directory = String(cString: made)
        if getuid() == 0 {
            guard let user = getpwnam("postgres") else { throw TestFailure("running as root, but there is no postgres user to run the server as") }
            chown(self.directory, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        try await self.tool("initdb", ["-D", self.directory + "/data", "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
        try await self.start()
    }

    /// `pg_ctl start`, waiting until the server accepts connections.
    func start() async throws {
        try await self.tool(
            "pg_ctl",
            ["-D", self.directory + "/data", "-l", self.directory + "/server.log", "-w", "-t", "60",
             "-o", "-k \(self.directory) -c listen_addresses= -F", "start"])
    }

    /// `pg_ctl stop -m immediate`: every connection is cut, and none is accepted until ``start()``.
    func stopImmediately() async throws {
        try await self.tool("pg_ctl", ["-D", self.directory + "/data", "-m", "immediate", "-w", "-t", "60", "stop"])
    }

    deinit {
        // One shell stops the server, then removes its directory, and is left to finish on its
        // own: the value may go away on a thread of the pool, which must not wait for it.
        let quoted = { (words: [String]) in words.map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ") }
        let stop = quoted(self.command("pg_ctl", ["-D", self.directory + "/data", "-m", "immediate", "stop"]))
        let script = "\(stop); /bin/rm -rf \(quoted([self.directory]))"
        try? ChildProcess("/bin/sh", ["-c", script], outputPath: "/dev/null", errorPath: "/dev/null").detach()
    }

    /// `pg_ctl restart -m immediate`: every connection is cut, uncommitted work is lost, and the
    /// server recovers from its WAL.
    func restartImmediately() async throws {
        try await self.tool("pg_ctl", ["-D", self.directory + "/data", "-m", "immediate", "-w", "-t", "60", "restart"])
    }

    /// Runs `sql` with psql; the rows, fields as text (`nil` for NULL).
    func query(_ sql: String) async throws -> [[String?]] {
        let output = try await self.tool(
            "psql", ["-h", self.directory, "-U", "postgres", "-d", "postgres", "-X", "-q", "-At", "-F", "\u{1f}", "-P", "null=\u{1e}",
                     "-v", "ON_ERROR_STOP=1", "-c", sql], asServerUser: false)
        return output.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            line.split(separator: "\u{1f}", omittingEmptySubsequences: false).map { $0 == "\u{1e}" ? nil : String($0) }
        }
    }

    /// The command line of a PostgreSQL program, run as `postgres` when the tests run as root.
    private func command(_ program: String, _ arguments: [String], asServerUser: Bool = true) -> [String] {
        let path = program == "psql" ? "/usr/bin/psql" : self.binaries + "/" + program
        return asServerUser && getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments
    }

    /// Runs a PostgreSQL program to its end; its standard output.
    @discardableResult
    private func tool(_ program: String, _ arguments: [String], asServerUser: Bool = true) async throws -> String {
        let command = self.command(program, arguments, asServerUser: asServerUser)
        let output = "/tmp/listsync-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer {
            unlink(output + ".out")
            unlink(output + ".err")
        }
        let process = try ChildProcess(command[0], Array(command.dropFirst()), outputPath: output + ".out", errorPath: output + ".err")
        let status = try await process.waitForExit(timeout: .seconds(90))
        guard status == 0 else {
            throw TestFailure("\(program) exited \(status): \(process.errorOutput)\n\(readFile(self.directory + "/server.log"))")
        }
        return process.output
    }

    /// Where initdb and pg_ctl are: Debian's /usr/lib/postgresql/VERSION/bin, newest first.
    private static func binaryDirectory() -> String? {
        for version in (11...20).reversed() {
            let directory = "/usr/lib/postgresql/\(version)/bin"
            if access(directory + "/initdb", X_OK) == 0 { return directory }
        }
        return nil
    }
}

/// A PostgreSQL database of a ``PostgresServer``.
struct PostgresTestDatabase: SinkTestDatabase {
    let server: PostgresServer

    var sinkArguments: [String] { ["--url", self.server.url] }
    var orderCollation: String { "" }

    func installAudit() async throws {
        let bookkeeping = SinkStatements(layout: SinkTableLayout(table: "-", kind: .csv, sectioned: false), dialect: .postgres).bookkeeping
        for statement in bookkeeping { _ = try await self.server.query(statement) }
        _ = try await self.server.query(
            """
            CREATE TABLE listsync_audit (id BIGSERIAL PRIMARY KEY, epoch TEXT, seq BIGINT);
            CREATE FUNCTION listsync_audit() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN INSERT INTO listsync_audit (epoch, seq) VALUES (NEW.epoch, NEW.seq); RETURN NEW; END $$;
            CREATE TRIGGER audit AFTER INSERT OR UPDATE ON listsync_cursors FOR EACH ROW EXECUTE FUNCTION listsync_audit();
            """)
    }

    func query(_ sql: String) async throws -> [[String?]] {
        try await self.server.query(sql)
    }
}
