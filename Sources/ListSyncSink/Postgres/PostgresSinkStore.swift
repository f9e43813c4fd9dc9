import ListFormats
import ListSyncClient
import ListSyncProtocol
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// A sink's table in a PostgreSQL database, through PostgresNIO.
///
/// A snapshot is loaded with `COPY … FROM STDIN` inside the transaction that also empties the
/// table and writes the cursor. A lost connection (the server restarted, the network failed) is
/// retried with backoff, 0.1 s doubling up to 5 s, for as long as it takes; before redoing a
/// changeset whose transaction was cut off, the sink reads the cursor back: when the commit did
/// reach the server, the changeset is not applied again.
///
/// Each connection holds a session advisory lock on the table (`pg_try_advisory_lock`, keyed by
/// the schema and table) and names itself `listsync sink WATCH` (`application_name`): a second
/// sink on the table is refused, with the holder's name and server process. Only when the sink
/// first connects: on a reconnect the lock may still be held by the sink's own lost session
/// (the server has not yet noticed the network cut), so a held lock is retried with the
/// backoff, naming its holder, until it is free.
public final class PostgresSinkStore: SinkStore {
    private let settings: PostgresSettings
    private let schema: String
    private let watch: String
    public var layout: SinkTableLayout {
        didSet { self.sql = SinkStatements(layout: self.layout, dialect: .postgres) }
    }
    private var sql: SinkStatements
    /// Whether the next snapshot may take the table over (`--take-over-table`): once.
    private var takeOver: Bool
    private let logger = Logger(label: "listsync.sink.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    private var connection: PostgresConnection?
    private var connections = 0
    /// Whether a connection ever took the table's lock: from then on, a held lock is the sink's
    /// own lost session or a sink that came in between — retried, never a refusal.
    private var hasConnected = false
    /// Told about each failed attempt to reach the database, with the delay before the next.
    public var onRetry: (String, Duration) -> Void = { _, _ in }
    /// Told once the database is reached again after ``onRetry``, with where it is (never the
    /// password); the work that was cut off goes on.
    public var onReconnected: (String) -> Void = { _ in }

    /// A store for `watch`'s table laid out as `layout`, in `schema` (created when missing) of
    /// the database `settings` name. Connects when first used.
    ///
    /// - Parameter takeOver: Whether the first snapshot may replace a table that is not the
    ///   watch's (a user's own, another watch's): the user's explicit `--take-over-table`.
    public init(settings: PostgresSettings, schema: String = "public", watch: String, layout: SinkTableLayout, takeOver: Bool = false) {
        self.settings = settings
        self.schema = schema
        self.watch = watch
        self.layout = layout
        self.sql = SinkStatements(layout: layout, dialect: .postgres)
        self.takeOver = takeOver
    }

    /// The schema as the database names it.
    private var schemaName: String { SQLDialect.postgres.identifier(self.schema) }

    deinit {
        // The closure keeps the connection until it is closed (PostgresNIO insists).
        if let connection = self.connection { connection.close().whenComplete { _ in _ = connection } }
    }

    // MARK: Connection and retries

    /// The open connection, or a new one with the schema created and first on the search path,
    /// the bookkeeping tables created and the table's lock taken.
    private func connected() async throws -> PostgresConnection {
        if let connection = self.connection, !connection.isClosed { return connection }
        let configuration: PostgresConnection.Configuration
        if self.settings.isUnixSocket {
            configuration = .init(
                unixSocketPath: self.settings.socketPath, username: self.settings.user, password: self.settings.password,
                database: self.settings.database)
        } else {
            var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
            tlsConfiguration.certificateVerification = .none  // libpq's prefer and require do not verify either.
            let tls: PostgresConnection.Configuration.TLS =
                switch self.settings.sslMode {
                case "disable", "allow": .disable
                case "require": .require(try NIOSSLContext(configuration: tlsConfiguration))
                default: .prefer(try NIOSSLContext(configuration: tlsConfiguration))
                }
            configuration = .init(
                host: self.settings.host, port: self.settings.port, username: self.settings.user, password: self.settings.password,
                database: self.settings.database, tls: tls)
        }
        self.connections += 1
        let connection = try await PostgresConnection.connect(configuration: configuration, id: self.connections, logger: self.logger)
        do {
            try await ClosedConnectionGuard.run(on: connection) { connection in try await self.setUp(connection) }
        } catch {
            _ = try? await connection.close()
            throw error
        }
        self.connection = connection
        self.hasConnected = true
        return connection
    }

    /// Names the session, takes the table's lock, puts the schema first on the search path and
    /// creates the bookkeeping tables.
    private func setUp(_ connection: PostgresConnection) async throws {
        do {
            let schema = SQLDialect.postgres.quoted(self.schema)
            try await self.run("SELECT set_config('application_name', $1, false)", [.text("listsync sink \(self.watch)")], on: connection)
            do {
                try await self.lockTable(on: connection)
            } catch let error as SinkError where error.code == .refused && self.hasConnected {
                throw LockStillHeld(reason: error.message)
            }
            try await self.run("SET search_path TO \(schema)", on: connection)
            // One sink at a time sets up the schema: two at once would collide in the catalog
            // (`CREATE … IF NOT EXISTS` is not safe against a concurrent twin) or both rekey.
            try await self.transaction(on: connection) {
                try await self.run("SELECT pg_advisory_xact_lock($1)", [.integer(self.setupLockKey)], on: connection)
                try await self.run("CREATE SCHEMA IF NOT EXISTS \(schema)", on: connection)
                for statement in self.sql.bookkeeping { try await self.run(statement, on: connection) }
                var rekeyed = false
                for try await _ in try await self.rows(self.sql.sectionsHaveTableName, [.text(self.schemaName)], on: connection) { rekeyed = true }
                if !rekeyed { for statement in self.sql.migration { try await self.run(statement, on: connection) } }
            }
        }
    }

    /// The table's lock found held on a reconnect: retried (``isTransient(_:)``).
    struct LockStillHeld: Error {
        /// Who holds it, as ``lockTable(on:)`` says.
        let reason: String
    }

    /// The key of the table's advisory lock: the FNV-1a hash of the schema and table names.
    private var lockKey: Int64 { Self.lockKey(schema: self.schemaName, table: self.sql.tableName) }

    /// The advisory lock key of `table` in `schema` (both as the database names them).
    static func lockKey(schema: String, table: String) -> Int64 {
        Int64(bitPattern: SQLDialect.fnv1a(Array("listsync\u{0}\(schema)\u{0}\(table)".utf8)))
    }

    /// The key of the transaction lock under which a sink creates (or rekeys) the schema's
    /// bookkeeping tables.
    private var setupLockKey: Int64 {
        Int64(bitPattern: SQLDialect.fnv1a(Array("listsync bookkeeping\u{0}\(self.schemaName)".utf8)))
    }

    /// Takes the table's advisory lock for the session.
    ///
    /// - Throws: ``SinkError/refused(_:)`` naming the session that holds it.
    private func lockTable(on connection: PostgresConnection) async throws {
        let key = self.lockKey
        for try await locked in try await self.rows("SELECT pg_try_advisory_lock($1)", [.integer(key)], on: connection).decode(Bool.self) {
            if locked { return }
        }
        // A bigint key is held as classid (high 32 bits), objid (low 32 bits), objsubid 1.
        let bits = UInt64(bitPattern: key)
        var holder = "another session"
        let sessions = try await self.rows(
            """
            SELECT a.pid::bigint, coalesce(a.application_name, ''), coalesce(host(a.client_addr), 'local socket')
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.classid::bigint = $1 AND l.objid::bigint = $2
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """, [.integer(Int64(bits >> 32)), .integer(Int64(bits & 0xffff_ffff))], on: connection)
        for try await (pid, name, client) in sessions.decode((Int64, String, String).self) {
            holder = (name.isEmpty ? "a session" : "\(name)") + " (server process \(pid), \(client))"
        }
        throw SinkError.refused(
            "the table \"\(self.layout.table)\" in \(self.settings), schema \(self.schema), is held by \(holder): "
                + "its advisory lock \(key) is taken; one sink per table")
    }

    /// The waits before reconnecting to the database: 0.1 s doubling up to 5 s, as the help and
    /// docs/SINKS.md say. Without jitter: one sink holds a table, so no crowd of sinks comes back
    /// at once, and the waits it prints stay the ones documented.
    static let retryBackoff = Backoff(initialDelay: .milliseconds(100), maximumDelay: .seconds(5), jitter: 0)

    /// Runs `body` on a connection; when the connection is lost, reconnects with backoff and
    /// runs it again — unless `isDone` (asked before each retry) says the lost attempt had
    /// committed. Work still waiting on a connection that closed is given up on
    /// (``ClosedConnectionGuard``) and retried the same way.
    private func withRetries<Result>(
        isDone: ((PostgresConnection) async throws -> Result?)? = nil, _ body: @escaping (PostgresConnection) async throws -> Result
    ) async throws(SinkError) -> Result {
        var delays = Self.retryBackoff.delays()
        var retrying = false
        var reconnecting = false
        while true {
            do {
                let connection = try await self.connected()
                if reconnecting {
                    reconnecting = false
                    self.onReconnected("\(self.settings)")
                }
                // Statements sent as the server goes away may never be answered: given up on.
                let isDone = retrying ? isDone : nil
                return try await ClosedConnectionGuard.run(on: connection) { connection in
                    if let isDone, let result = try await isDone(connection) { return result }
                    return try await body(connection)
                }
            } catch {
                // The sink's own errors (a diverged table, a layout it cannot keep) pass as they are:
                // the runner answers some of them with a resynchronization.
                if let error = error as? SinkError { throw error }
                guard Self.isTransient(error) else { throw .database("\(self.settings.connectionDescription): \(Self.describe(error))") }
                if let connection = self.connection {
                    self.connection = nil
                    _ = try? await connection.close()
                }
                let delay = delays.next()
                self.onRetry("\(self.settings.connectionDescription): \(Self.describe(error))", delay)
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw .database("\(self.settings): cancelled while reconnecting")
                }
                retrying = true
                reconnecting = true
            }
        }
    }

    /// Whether `error` is a lost or refused connection, or the table's lock still held on a
    /// reconnect (``LockStillHeld``), or a statement never answered on a connection that closed
    /// (``ClosedConnectionGuard/Abandoned``), all worth retrying, rather than a statement
    /// the server rejects or a failure that trying again cannot mend (TLS set-up, a reply that
    /// does not decode, an authentication method PostgresNIO lacks): only those named here are
    /// retried.
    static func isTransient(_ error: any Error) -> Bool {
        if error is LockStillHeld || error is ClosedConnectionGuard.Abandoned { return true }
        guard let error = error as? PSQLError else {
            // Below PostgresNIO: a socket that could not connect, or was cut.
            return error is IOError || error is ChannelError
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            // Connection exceptions, operator intervention (shutdown, restart), too many connections.
            return state.hasPrefix("08") || state.hasPrefix("57P") || state == "53300"
        case .connectionError:
            // A TLS handshake that fails fails again.
            return !(error.underlying is NIOSSLError)
        case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
            return true
        default:
            return false
        }
    }

    /// The server's message, detail and SQLSTATE, or the kind of failure and its cause (the
    /// system call and errno, the TLS error) — never a password: the settings' description
    /// leaves it out, and no statement carries one.
    static func describe(_ error: any Error) -> String {
        if let held = error as? LockStillHeld { return held.reason + " (after a reconnect: retried until it is free)" }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let info = error.serverInfo, let message = info[.message] {
            return message + (info[.detail].map { " (\($0))" } ?? "") + (info[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
        }
        return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
    }

    // MARK: Statements

    private func run(_ sql: String, _ values: [SQLValue] = [], on connection: PostgresConnection) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(values)), logger: self.logger)
    }

    private func rows(_ sql: String, _ values: [SQLValue] = [], on connection: PostgresConnection) async throws -> PostgresRowSequence {
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(values)), logger: self.logger)
    }

    /// Runs `sql`; how many rows it changed (an `INSERT`, `UPDATE` or `DELETE`).
    private func changing(_ sql: String, _ values: [SQLValue] = [], on connection: PostgresConnection) async throws -> Int {
        try await self.changing(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(values)), on: connection)
    }

    private func changing(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> Int {
        let result: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: self.logger)
        return try await result.get().metadata.rows ?? 0
    }

    private static func bindings(_ values: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .real(let real): bindings.append(real)
            case .text(let text): bindings.append(Self.storable(text))
            }
        }
        return bindings
    }

    /// `text` as a PostgreSQL text value can hold it: U+0000, which none can, as the six
    /// characters `\u0000` (a JSON record keeps its escapes as written and needs none of this;
    /// a CSV field or a projected member that holds the character does).
    static func storable(_ text: String) -> String {
        guard text.utf8.contains(0) else { return text }
        return text.replacingAll("\u{0}", with: "\\u0000")
    }

    /// Runs `body` between `BEGIN` and `COMMIT` (a failure rolls back: the server does it when
    /// the connection is gone).
    private func transaction(on connection: PostgresConnection, _ body: () async throws -> Void) async throws {
        try await self.run("BEGIN", on: connection)
        do {
            try await body()
            try await self.run("COMMIT", on: connection)
        } catch {
            try? await self.run("ROLLBACK", on: connection)
            throw error
        }
    }

    // MARK: SinkStore

    public func load() async throws(SinkError) -> SinkState? {
        try await self.withRetries { connection in try await self.load(on: connection) }
    }

    private func storedCursor(on connection: PostgresConnection) async throws -> (cursor: Cursor, table: String, schema: ListSchema?)? {
        for try await (epochText, seq, _, table, columns) in try await self.rows(self.sql.selectCursor, [.text(self.watch), .text(self.layout.table)], on: connection)
            .decode((String, Int64, String, String, String).self)
        {
            guard let epoch = Epoch(epochText) else { return nil }
            return (Cursor(epoch: epoch, seq: UInt64(bitPattern: seq)), table, StoredRows.columns(columns))
        }
        return nil
    }

    /// What the bookkeeping says about the table (read in the caller's transaction, if any).
    private func claim(on connection: PostgresConnection) async throws -> TableClaim {
        var owner: String?
        for try await (watch) in try await self.rows(self.sql.owner, [.text(self.sql.tableName)], on: connection).decode(String.self) {
            owner = watch
        }
        var named = false
        for try await _ in try await self.rows(self.sql.cursorNamesTable, [.text(self.watch), .text(self.layout.table)], on: connection) {
            named = true
        }
        var exists = false
        for try await (found) in try await self.rows("SELECT to_regclass($1) IS NOT NULL", [.text(self.sql.table)], on: connection).decode(Bool.self) {
            exists = found
        }
        return TableClaim(owner: owner, cursorNamesTable: named, exists: exists)
    }

    /// Checks, in a changeset's transaction, that the table is still the watch's, and records it
    /// as the watch's (a table made before `listsync_tables` existed).
    private func checkOwnership(on connection: PostgresConnection) async throws {
        if let reason = try await self.claim(on: connection).divergence(table: self.layout.table, watch: self.watch) {
            throw SinkError.diverged(reason)
        }
        try await self.run(self.sql.upsertOwner, [.text(self.sql.tableName), .text(self.watch)], on: connection)
    }

    private var databaseName: String { "\(self.settings), schema \(self.schema)," }

    private func load(on connection: PostgresConnection) async throws -> SinkState? {
        let claim = try await self.claim(on: connection)
        try claim.check(table: self.layout.table, watch: self.watch, takeOver: self.takeOver, in: self.databaseName)
        // A table being taken over holds someone else's rows: a snapshot replaces them.
        guard claim.divergence(table: self.layout.table, watch: self.watch) == nil else { return nil }
        guard let stored = try await self.storedCursor(on: connection), stored.table == self.layout.table, let schema = stored.schema,
            try await self.tableMatches(schema, on: connection)
        else { return nil }
        let (sections, orders) = try await self.readSections(on: connection)
        var list = SinkList(cursor: stored.cursor, schema: schema, sections: sections, orders: orders)
        list.streamPlace = try await self.streamPlace(at: stored.cursor, on: connection)
        return SinkState(list: list)
    }

    /// Whether the table exists with the columns and primary key the layout gives `schema` (and,
    /// for JSON, a `json` record column: one made `jsonb` by an earlier version is recreated).
    private func tableMatches(_ schema: ListSchema, on connection: PostgresConnection) async throws -> Bool {
        var columns = Set<String>()
        let names = try await self.rows(
            "SELECT column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2",
            [.text(self.schemaName), .text(self.sql.tableName)], on: connection)
        for try await (name, type) in names.decode((String, String).self) {
            if name == SinkTableLayout.recordColumn, type != "json" { return false }
            columns.insert(name)
        }
        var key: [String] = []
        let primary = try await self.rows(
            """
            SELECT a.attname::text FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
            WHERE i.indrelid = to_regclass($1) AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)
            """, [.text(self.sql.table)], on: connection)
        for try await (name) in primary.decode(String.self) { key.append(name) }
        return self.sql.matches(columns: columns, key: key, schema)
    }

    /// The sections and rows as stored; with `verifying`, each row's hash recomputed from its
    /// values (``StoredRecordHasher``) rather than read from `listsync_hash`.
    private func readSections(
        verifying schema: ListSchema? = nil, on connection: PostgresConnection
    ) async throws -> (sections: [MirroredSection], orders: [Int64: String]) {
        var stored: [(section: String, hash: ContentHash)] = []
        for try await (section, hashText) in try await self.rows(self.sql.selectSections, [.text(self.watch), .text(self.layout.table)], on: connection)
            .decode((String, String).self)
        {
            guard let hash = ContentHash(hashText) else { throw SinkError.diverged("a section of \(self.watch) has no hash") }
            stored.append((section, hash))
        }
        var rows: [(rowID: Int64, section: String?, order: String, hash: ContentHash)] = []
        var hasher = schema.map { StoredRecordHasher(layout: self.layout, schema: $0) }
        let values = schema.map { StoredRecordHasher.columns(self.layout, $0) } ?? []
        for try await row in try await self.rows(self.sql.selectRows(values: values), on: connection) {
            let cells = Array(row)
            let rowID = try cells[0].decode(Int64.self)
            guard let hash = ContentHash(try cells[3].decode(String.self)) else { throw SinkError.diverged("row \(rowID) has no hash") }
            var computed = hash
            if hasher != nil {
                computed = try hasher?.contentHash(of: try cells.dropFirst(4).map { try $0.decode(String?.self) }, stored: hash) ?? hash
            }
            rows.append((rowID, try cells[1].decode(String?.self), try cells[2].decode(String.self), computed))
        }
        return try StoredRows.sections(stored: stored, rows: rows, sectioned: self.layout.sectioned)
    }

    public func replace(with mirror: MirroredList, state: SinkState) async throws(SinkError) {
        let list = state.list
        try await self.withRetries { connection in
            try await self.transaction(on: connection) {
                try await self.claim(on: connection).check(table: self.layout.table, watch: self.watch, takeOver: self.takeOver, in: self.databaseName)
                try await self.run(self.sql.upsertOwner, [.text(self.sql.tableName), .text(self.watch)], on: connection)
                if try await self.tableMatches(list.schema, on: connection) {
                    try await self.run("DELETE FROM \(self.sql.table)", on: connection)
                } else {
                    try await self.run("DROP TABLE IF EXISTS \(self.sql.table)", on: connection)
                    for statement in try self.layout.create(list.schema, .postgres, qualifiedName: self.sql.table) {
                        try await self.run(statement, on: connection)
                    }
                }
                try await self.fill(mirror, list, on: connection)
            }
        }
        self.takeOver = false
    }

    /// Sends the rows of `mirror`'s list and writes its sections and cursor.
    private func fill(_ mirror: MirroredList, _ list: SinkList, on connection: PostgresConnection) async throws {
        try await self.copy(mirror, list, on: connection)
        try await self.writeSections(list.sections.map(\.model), on: connection)
        try await self.writeCursor(list, digest: list.digest, on: connection)
    }

    public func refill(with mirror: MirroredList, state: SinkState, schema: SchemaUpdate?) async throws(SinkError) {
        let list = state.list
        try await self.withRetries(isDone: { connection in
            try await self.storedCursor(on: connection)?.cursor == list.cursor ? () : nil
        }) { connection in
            try await self.transaction(on: connection) {
                try await self.checkOwnership(on: connection)
                try await self.alter(schema, on: connection)
                try await self.empty(on: connection)
                try await self.fill(mirror, list, on: connection)
            }
        }
    }

    public func refill(_ writes: SinkWrites, state: SinkState, digest: ListDigest) async throws(SinkError) {
        let list = state.list
        let kept = "listsync_refill_kept"
        try await self.withRetries(isDone: { connection in
            try await self.storedCursor(on: connection)?.cursor == list.cursor ? () : nil
        }) { connection in
            try await self.transaction(on: connection) {
                try await self.checkOwnership(on: connection)
                try await self.alter(writes.schema, on: connection)
                var removed = PostgresBindings()
                removed.append(writes.refillRemoved)
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "CREATE TEMPORARY TABLE \(kept) ON COMMIT DROP AS SELECT * FROM \(self.sql.table) WHERE NOT (listsync_row = ANY($1))",
                        binds: removed), logger: self.logger)
                try await self.empty(on: connection)
                let restored = try await self.changing("INSERT INTO \(self.sql.table) SELECT * FROM \(kept)", on: connection)
                try RowCount.expectKept(writes.refillKeptCount(after: list), restored, in: self.layout.table)
                try await self.run("DROP TABLE \(kept)", on: connection)
                // Streamed: each row's values are built as COPY reads them, into one array.
                var rows = writes.refillRows(in: list).makeIterator()
                try await self.copy(into: self.sql.tableName, columns: self.sql.insertColumns(list.schema), on: connection) { values in
                    guard let row = rows.next() else { return false }
                    values.removeAll(keepingCapacity: true)
                    self.sql.appendInsertValues(row, list.schema, to: &values)
                    return true
                }
                let moves = writes.moved.map { self.sql.placeValues($0.place) + [.integer($0.rowID)] }
                try await self.update(self.sql.placeColumns, moves, on: connection)
                if let sections = writes.sections { try await self.writeSections(sections, on: connection) }
                try await self.writeCursor(list, digest: digest, on: connection)
            }
        }
    }

    /// Empties the table for a refill, in the caller's transaction: `TRUNCATE` — a million
    /// deleted rows would leave as many dead rows and index entries for the inserts to wade
    /// through, and cost a refill twice a fresh load — or, where `TRUNCATE` is refused (another
    /// table's foreign key names this one), `DELETE`. Either rolls back with the transaction;
    /// neither drops the table.
    private func empty(on connection: PostgresConnection) async throws {
        try await self.run("SAVEPOINT listsync_refill", on: connection)
        do {
            try await self.run("TRUNCATE \(self.sql.table)", on: connection)
        } catch let error as PSQLError where error.code == .server {
            try await self.run("ROLLBACK TO SAVEPOINT listsync_refill", on: connection)
            try await self.run("DELETE FROM \(self.sql.table)", on: connection)
        }
        try await self.run("RELEASE SAVEPOINT listsync_refill", on: connection)
    }

    private func alter(_ schema: SchemaUpdate?, on connection: PostgresConnection) async throws {
        guard let schema else { return }
        for statement in self.layout.alter(schema.change, .postgres, qualifiedName: self.sql.table) {
            try await self.run(statement, on: connection)
        }
    }

    /// Sends every row of the snapshot with `COPY FROM STDIN`.
    private func copy(_ mirror: MirroredList, _ list: SinkList, on connection: PostgresConnection) async throws {
        var rows = SnapshotRows(mirror, list, self.sql)
        try await self.copy(into: self.sql.tableName, columns: self.sql.insertColumns(list.schema), on: connection) { values in
            rows.next(into: &values)
        }
    }

    /// Sends `rows` (values of `columns`) into `table` with `COPY FROM STDIN`.
    private func copy(
        _ rows: [[SQLValue]], into table: String, columns: [String], on connection: PostgresConnection
    ) async throws {
        var remaining = rows[...]
        try await self.copy(into: table, columns: columns, on: connection) { values in
            guard let row = remaining.popFirst() else { return false }
            values = row
            return true
        }
    }

    /// Sends the rows `next` puts in its argument (values of `columns`, as the list names them;
    /// `false` after the last) into `table` (as the database names it) with `COPY FROM STDIN`
    /// (text format), in chunks of about 1 MiB.
    private func copy(
        into table: String, columns: [String], on connection: PostgresConnection, rows next: (inout [SQLValue]) -> Bool
    ) async throws {
        // PostgresNIO puts the names in double quotes as they are: quotes inside are doubled here.
        let columns = columns.map { SQLDialect.postgres.identifier($0).replacingAll("\"", with: "\"\"") }
        let table = table.replacingAll("\"", with: "\"\"")
        try await connection.copyFrom(table: table, columns: columns, logger: self.logger) { writer in
            var buffer = ByteBuffer()
            buffer.reserveCapacity(1 << 20)
            var values: [SQLValue] = []
            while next(&values) {
                Self.appendCopyLine(values, to: &buffer)
                if buffer.readableBytes >= 1 << 20 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
    }

    /// Above this many rows of one kind, a changeset's rows go in bulk: `COPY` for new rows,
    /// `= ANY(array)` for deleted ones, `COPY` into a temporary table and one `UPDATE … FROM` for
    /// changed ones; below it, one statement per row.
    static let bulkThreshold = 64

    /// Deletes the rows `rowIDs`, each of which must be there.
    private func delete(_ rowIDs: [Int64], on connection: PostgresConnection) async throws {
        guard rowIDs.count > Self.bulkThreshold else {
            for rowID in rowIDs {
                try RowCount.expect(1, try await self.changing(self.sql.deleteRow, [.integer(rowID)], on: connection), deleting: rowID, from: self.layout.table)
            }
            return
        }
        var bindings = PostgresBindings()
        bindings.append(rowIDs)
        let deleted = try await self.changing(
            PostgresQuery(unsafeSQL: "DELETE FROM \(self.sql.table) WHERE listsync_row = ANY($1)", binds: bindings), on: connection)
        try RowCount.expect(rowIDs.count, deleted, from: self.layout.table)
    }

    /// Sets `columns` of rows: each of `rows` holds their values, then the row's identity; each
    /// row must be there.
    private func update(_ columns: [String], _ rows: [[SQLValue]], on connection: PostgresConnection) async throws {
        guard rows.count > Self.bulkThreshold else {
            let update = self.sql.update(columns)
            for values in rows {
                let rowID: Int64? = if case .integer(let rowID) = values.last { rowID } else { nil }
                try RowCount.expect(1, try await self.changing(update, values, on: connection), updating: rowID, in: self.layout.table)
            }
            return
        }
        let incoming = "listsync_incoming"
        let selected = (columns + ["listsync_row"]).map(SQLDialect.postgres.quoted).joined(separator: ", ")
        try await self.run("CREATE TEMPORARY TABLE \(incoming) AS SELECT \(selected) FROM \(self.sql.table) WITH NO DATA", on: connection)
        try await self.copy(rows, into: incoming, columns: columns + ["listsync_row"], on: connection)
        let updated = try await self.changing(self.sql.update(columns, from: incoming), on: connection)
        try await self.run("DROP TABLE \(incoming)", on: connection)
        try RowCount.expect(rows.count, updated, in: self.layout.table)
    }

    /// One line of `COPY`'s text format: tab-separated, `\N` for NULL, backslash escapes.
    static func appendCopyLine(_ values: [SQLValue], to buffer: inout ByteBuffer) {
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
            switch value {
            case .null: buffer.writeStaticString("\\N")
            case .integer(let integer): buffer.writeString(String(integer))
            case .real(let real): buffer.writeString("\(real)")
            case .text(let text):
                // Most text has nothing to escape: written whole.
                guard text.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") || $0 == 0 })
                else {
                    buffer.writeString(text)
                    continue
                }
                for byte in text.utf8 {
                    switch byte {
                    case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                    case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                    case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                    case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                    // U+0000, which no text value holds: written as `storable(_:)` writes it.
                    case 0: buffer.writeStaticString("\\\\u0000")
                    default: buffer.writeInteger(byte)
                    }
                }
            }
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    public func apply(_ writes: SinkWrites, state: SinkState, digest: ListDigest) async throws(SinkError) {
        let list = state.list
        try await self.withRetries(isDone: { connection in
            // The transaction whose answer was lost may have committed: then it is not redone.
            try await self.storedCursor(on: connection)?.cursor == list.cursor ? () : nil
        }) { connection in
            try await self.transaction(on: connection) {
                try await self.checkOwnership(on: connection)
                try await self.alter(writes.schema, on: connection)
                try await self.delete(writes.deleted, on: connection)
                for placed in [false, true] {
                    let rows = writes.updated.filter { ($0.place != nil) == placed }.map { self.sql.updateValues($0, list.schema) }
                    try await self.update(self.sql.updateColumns(list.schema, placed: placed), rows, on: connection)
                }
                let moves = writes.moved.map { self.sql.placeValues($0.place) + [.integer($0.rowID)] }
                try await self.update(self.sql.placeColumns, moves, on: connection)
                let inserted = writes.inserted.map { self.sql.insertValues($0, list.schema) }
                if inserted.count > Self.bulkThreshold {
                    try await self.copy(inserted, into: self.sql.tableName, columns: self.sql.insertColumns(list.schema), on: connection)
                } else {
                    let insert = self.sql.insertRow(list.schema)
                    for values in inserted { try await self.run(insert, values, on: connection) }
                }
                if let sections = writes.sections { try await self.writeSections(sections, on: connection) }
                try await self.writeCursor(list, digest: digest, on: connection)
            }
        }
    }

    private func writeSections(_ sections: [ChangesetStage.Section], on connection: PostgresConnection) async throws {
        try await self.run(self.sql.deleteSections, [.text(self.watch), .text(self.layout.table)], on: connection)
        for (position, section) in sections.enumerated() {
            try await self.run(
                self.sql.insertSection,
                [.text(self.watch), .text(self.layout.table), .integer(Int64(position)), SinkList.sectionValue(section.model), .text(section.hash.description)],
                on: connection)
        }
    }

    private func writeCursor(_ list: SinkList, digest: ListDigest, on connection: PostgresConnection) async throws {
        try await self.run(
            self.sql.upsertCursor,
            [
                .text(self.watch), .text(list.cursor.epoch.description), .integer(Int64(bitPattern: list.cursor.seq)),
                .text(digest.description), .text(self.layout.table), .text(SinkStatements.columnsText(list.schema)),
            ], on: connection)
        if let place = list.streamPlace {
            try await self.run(self.sql.upsertStreamPlace, self.sql.streamPlaceValues(watch: self.watch, place, at: list.cursor), on: connection)
        }
    }

    /// The table's place in a stream, when it was written at `cursor`.
    private func streamPlace(at cursor: Cursor, on connection: PostgresConnection) async throws -> SinkStreamPlace? {
        for try await (stream, epoch, seq, sequence) in try await self.rows(
            self.sql.selectStreamPlace, [.text(self.watch), .text(self.layout.table)], on: connection
        ).decode((String, String, Int64, Int64).self) {
            return SinkStatements.streamPlace(stream: stream, epoch: epoch, seq: seq, sequence: sequence, at: cursor)
        }
        return nil
    }

    public func storedDigest(schema: ListSchema, version: DigestVersion) async throws(SinkError) -> ListDigest {
        try await self.withRetries { connection in
            SinkList.digest(schema: schema, of: try await self.readSections(verifying: schema, on: connection).sections, version: version)
        }
    }
}
