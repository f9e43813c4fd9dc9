import FileWatching
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ListFormats
import TOMLKit

/// Turns a parsed TOML table into a ``DaemonConfiguration``, collecting every problem with its
/// position instead of stopping at the first.
///
/// The typed accessors (``string(_:_:at:)``, ``integer(_:_:at:in:)``, ``columns(_:_:at:)``...)
/// report a wrong type or an out-of-range value themselves and return `nil`, so the callers read
/// as a list of settings with their defaults. Positions come from the ``TOMLSourceMap``, queried
/// with the path of the offending key, array element or table.
struct ConfigurationReader {
    typealias Path = TOMLSourceMap.Path

    /// The keys of the top-level table.
    static let topLevelKeys: Set<String> = [
        "socket", "state_directory", "allow_uids", "allow_groups", "socket_mode", "settle_after_close_ms",
        "settle_after_modify_ms", "settle_after_disappearance_ms", "settle_max_ms", "settle_while_writing_max_ms",
        "reconcile_interval_ms", "heartbeat_interval_ms", "history_length", "history_max_mib", "history_cache_mib", "client_buffer_budget_mib",
        "partial_line_timeout_ms", "spare_memory_max_idle_ms", "metrics_listen", "sync_before_publish", "watch",
    ]
    /// The keys of a `[[watch]]` table.
    static let watchKeys: Set<String> = [
        "name", "path", "format", "key", "section_by", "ignore", "delimiter", "ragged_rows", "publish_while_writing",
    ]
    /// The values of `delimiter`, spelled as `listsync parse --delimiter` takes them: a name or
    /// the character itself (``CSVDelimiter/spellings``).
    static let delimiters: [(name: String, value: CSVDelimiter)] = CSVDelimiter.allCases.flatMap { delimiter in
        delimiter.spellings.map { ($0, delimiter) }
    }
    /// The values of `ragged_rows`, named as `listsync parse --ragged-rows` names them.
    static let raggedRowPolicies: [(name: String, value: RaggedRowPolicy)] = [RaggedRowPolicy.error, .pad, .truncate].map { ("\($0)", $0) }

    /// Largest `sun_path` content: 108 bytes including the terminating NUL.
    static let maximumSocketPathLength = 107
    /// Largest valid user or group id; `(uid_t)-1` means "no id".
    static let maximumID = Int(UInt32.max) - 1

    let sourceMap: TOMLSourceMap
    /// The configuration file as named to the loader, for locations.
    let file: String
    /// The absolute directory of the configuration file, against which relative paths resolve.
    let baseDirectory: String
    let environment: ProcessEnvironment

    private(set) var errors: [ConfigurationProblem] = []
    private(set) var warnings: [ConfigurationProblem] = []

    init(sourceMap: TOMLSourceMap, file: String, baseDirectory: String, environment: ProcessEnvironment) {
        self.sourceMap = sourceMap
        self.file = file
        self.baseDirectory = baseDirectory
        self.environment = environment
    }

    /// Reads the whole configuration; check ``errors`` before using the result.
    mutating func read(_ root: TOMLTable) -> DaemonConfiguration {
        self.rejectUnknownKeys(in: root, at: [], known: Self.topLevelKeys, table: nil)
        let defaults = DaemonConfiguration.Defaults.self
        return DaemonConfiguration(
            socketPath: self.socketPath(root) ?? defaults.socketPath(environment: self.environment),
            stateDirectory: self.path(root, "state_directory", at: [])
                ?? defaults.stateDirectory(environment: self.environment),
            socketMode: self.socketMode(root) ?? defaults.socketMode,
            allowedUserIDs: self.list(root, "allow_uids", at: [], expected: "an array of user ids") { reader, value, path in
                reader.id(value, key: "allow_uids", at: path).map { uid_t($0) }
            } ?? [],
            allowedGroups: self.list(root, "allow_groups", at: [], expected: "an array of group names or ids") {
                reader, value, path in
                if let name = value.string {
                    guard let name = reader.nonEmpty(name, key: "allow_groups", at: path) else { return nil }
                    do throws(NameServiceError) {
                        guard let id = try AccountDatabase.groupID(named: name) else {
                            return reader.reject("allow_groups", at: path, because: "no group named \"\(name)\" in the group database")
                        }
                        return .name(name, id: id)
                    } catch {
                        return reader.reject("allow_groups", at: path, because: "\(error)")
                    }
                }
                return reader.id(value, key: "allow_groups", at: path).map { .id(gid_t($0)) }
            } ?? [],
            watcher: self.watcherConfiguration(root),
            heartbeatInterval: self.duration(root, "heartbeat_interval_ms", at: [], in: 1...86_400_000)
                ?? defaults.heartbeatInterval,
            historyLength: self.integer(root, "history_length", at: [], in: 1...1_000_000) ?? defaults.historyLength,
            historyMaxBytes: self.integer(root, "history_max_mib", at: [], in: 1...1_048_576).map { $0 << 20 } ?? defaults.historyMaxBytes,
            historyCacheBytes: self.integer(root, "history_cache_mib", at: [], in: 1...65_536).map { $0 << 20 } ?? defaults.historyCacheBytes,
            clientBufferBudget: self.integer(root, "client_buffer_budget_mib", at: [], in: 1...1_048_576).map { $0 << 20 }
                ?? defaults.clientBufferBudget,
            unfinishedLineTimeout: self.duration(root, "partial_line_timeout_ms", at: [], in: 1...86_400_000)
                ?? defaults.unfinishedLineTimeout,
            spareMemoryMaxIdle: self.duration(root, "spare_memory_max_idle_ms", at: [], in: 0...3_600_000)
                ?? defaults.spareMemoryMaxIdle,
            metricsListen: self.metricsListen(root),
            syncBeforePublish: self.value(root, "sync_before_publish", at: [], expected: "a boolean", { $0.bool }) ?? defaults.syncBeforePublish,
            watches: self.watches(root)
        )
    }

    // MARK: - Top-level settings

    private mutating func socketPath(_ root: TOMLTable) -> String? {
        self.path(root, "socket", at: []).flatMap { path in
            self.accept(
                path,
                if: path.utf8.count <= Self.maximumSocketPathLength,
                key: "socket",
                at: [.key("socket")],
                otherwise: "\"\(path)\" is \(path.utf8.count) bytes long; a Unix socket path has at most \(Self.maximumSocketPathLength)"
            )
        }
    }

    /// `metrics_listen`: `"HOST:PORT"` with a numeric address; absent, no metrics endpoint.
    private mutating func metricsListen(_ root: TOMLTable) -> MetricsAddress? {
        guard let text = self.value(root, "metrics_listen", at: [], expected: "a \"HOST:PORT\" string such as \"127.0.0.1:9464\"", { $0.string })
        else { return nil }
        do {
            return try MetricsAddress(parsing: text)
        } catch {
            return self.reject("metrics_listen", at: [.key("metrics_listen")], because: error.reason)
        }
    }

    /// `socket_mode`: an octal permission string, `"660"` or `"0660"`, at most `0777`.
    private mutating func socketMode(_ root: TOMLTable) -> mode_t? {
        guard let text = self.value(root, "socket_mode", at: [], expected: "an octal string such as \"0660\"", { $0.string })
        else { return nil }
        let digits = text.utf8.count == 4 && text.hasPrefix("0") ? text.dropFirst() : Substring(text)
        guard digits.utf8.count == 3, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }),
            let mode = mode_t(digits, radix: 8)
        else {
            self.error(.invalidSocketMode(text, at: self.location([.key("socket_mode")])))
            return nil
        }
        return mode
    }

    /// The file watcher's timing; absent keys keep the watcher's defaults.
    private mutating func watcherConfiguration(_ root: TOMLTable) -> FileWatcher.Configuration {
        var watcher = FileWatcher.Configuration()
        let settings: [(key: String, range: ClosedRange<Int>, field: WritableKeyPath<FileWatcher.Configuration, Duration>)] = [
            ("settle_after_close_ms", 0...60_000, \.closeSettleDelay),
            ("settle_after_modify_ms", 0...60_000, \.modifySettleDelay),
            ("settle_after_disappearance_ms", 0...60_000, \.disappearanceSettleDelay),
            ("settle_max_ms", 1...3_600_000, \.maximumSettleDelay),
            ("settle_while_writing_max_ms", 0...3_600_000, \.maximumWaitForWriter),
            ("reconcile_interval_ms", 1...86_400_000, \.reconciliationInterval),
        ]
        for setting in settings {
            if let duration = self.duration(root, setting.key, at: [], in: setting.range) {
                watcher[keyPath: setting.field] = duration
            }
        }
        return watcher
    }

    // MARK: - Watches

    private mutating func watches(_ root: TOMLTable) -> [WatchConfiguration] {
        let tables = self.list(root, "watch", at: [], expected: "an array of tables ([[watch]])") { reader, value, path in
            reader.value(value, expected: "a table", key: "watch", at: path, { $0.table }).map { (table: $0, path: path) }
        }
        if root["watch"] == nil || root["watch"]?.array?.isEmpty == true {
            self.warnings.append(.noWatches(file: self.file))
        }
        guard let tables else { return [] }
        var watches: [WatchConfiguration] = []
        var firstDefinitions: [String: ConfigurationLocation] = [:]
        for (table, path) in tables {
            guard let watch = self.watch(table, at: path) else { continue }
            let nameLocation = self.location(path + [.key("name")])
            if let first = firstDefinitions[watch.name] {
                self.error(.duplicateWatchName(watch.name, at: nameLocation, firstDefinedAt: first))
            } else {
                firstDefinitions[watch.name] = nameLocation
                watches.append(watch)
            }
        }
        return watches
    }

    private mutating func watch(_ table: TOMLTable, at path: Path) -> WatchConfiguration? {
        self.rejectUnknownKeys(in: table, at: path, known: Self.watchKeys, table: "[[watch]]")
        let name = self.required(table, "name", at: path).flatMap { name in
            self.accept(
                name,
                if: WatchConfiguration.isValidName(name),
                key: "name",
                at: path + [.key("name")],
                otherwise: "\"\(name)\" must be 1 to 64 characters from A-Z a-z 0-9 . _ - and not start with a dot"
            )
        }
        let filePath = self.required(table, "path", at: path).flatMap { self.filePath($0, key: "path", at: path) }
        let format = self.format(table, at: path, filePath: filePath)
        let key = self.columns(table, "key", at: path) ?? []
        let sectionBy = self.string(table, "section_by", at: path).flatMap {
            self.nonEmpty($0, key: "section_by", at: path + [.key("section_by")])
        }
        let ignore = self.columns(table, "ignore", at: path) ?? []
        for column in ignore where key.contains(column) || column == sectionBy {
            let role = key.contains(column) ? "a key column" : "the section_by column"
            let reason = "\"\(column)\" is \(role) and cannot be ignored"
            self.error(.invalidValue(key: "ignore", reason: reason, at: self.location(path + [.key("ignore")])))
        }
        let delimiter = self.csvOption(table, "delimiter", at: path, format: format, among: Self.delimiters)
        let raggedRows = self.csvOption(table, "ragged_rows", at: path, format: format, among: Self.raggedRowPolicies)
        let publishWhileWriting = self.value(table, "publish_while_writing", at: path, expected: "a boolean", { $0.bool })
        guard let name, let filePath, let format else { return nil }
        return WatchConfiguration(
            name: name,
            path: filePath,
            format: format,
            key: key,
            sectionBy: sectionBy,
            ignore: ignore,
            delimiter: delimiter,
            raggedRows: raggedRows ?? .error,
            publishWhileWriting: publishWhileWriting ?? false
        )
    }

    /// A CSV reading option (`delimiter`, `ragged_rows`): one of the named `choices`, and only for
    /// a csv or tsv watch, where it means something.
    private mutating func csvOption<Value>(
        _ table: TOMLTable,
        _ key: String,
        at tablePath: Path,
        format: WatchConfiguration.Format?,
        among choices: [(name: String, value: Value)]
    ) -> Value? {
        guard let name = self.string(table, key, at: tablePath) else { return nil }
        let keyPath = tablePath + [.key(key)]
        guard let choice = choices.first(where: { $0.name == name.lowercased() }) else {
            var shown: [String] = []
            for choice in choices {
                let spelling = "\"\(choice.name == "\t" ? "\\t" : choice.name)\""
                if !shown.contains(spelling) { shown.append(spelling) }
            }
            let names = shown.joined(separator: ", ")
            return self.reject(key, at: keyPath, because: "\"\(name)\" is none of \(names)")
        }
        if let format, format.defaultDelimiter == nil {
            return self.reject(key, at: keyPath, because: "it applies to csv and tsv watches only, and this one is \(format.rawValue)")
        }
        return choice.value
    }

    /// The watch's format: the one it names, or the one its path's extension implies.
    private mutating func format(_ table: TOMLTable, at path: Path, filePath: String?) -> WatchConfiguration.Format? {
        if let name = self.string(table, "format", at: path) {
            guard let format = WatchConfiguration.Format(rawValue: name.lowercased()) else {
                self.error(.unknownFormat(name, at: self.location(path + [.key("format")])))
                return nil
            }
            return format
        }
        guard let filePath else { return nil }
        guard let format = WatchConfiguration.Format(pathExtensionOf: filePath) else {
            self.error(.formatNotInferable(path: filePath, at: self.location(path + [.key("path")])))
            return nil
        }
        return format
    }

    /// A list of column names (`key`, `ignore`): one string or an array of distinct, non-empty
    /// strings.
    private mutating func columns(_ table: TOMLTable, _ key: String, at tablePath: Path) -> [String]? {
        let keyPath = tablePath + [.key(key)]
        if let single = table[key]?.string {
            return self.nonEmpty(single, key: key, at: keyPath).map { [$0] }
        }
        let columns = self.list(table, key, at: tablePath, expected: "a string or an array of strings") {
            reader, value, path in
            reader.value(value, expected: "a string", key: key, at: path, { $0.string }).flatMap {
                reader.nonEmpty($0, key: key, at: path)
            }
        }
        guard let columns else { return nil }
        if columns.isEmpty {
            return self.reject(key, at: keyPath, because: "the list is empty; leave the key out instead")
        }
        return self.accept(columns, if: Set(columns).count == columns.count, key: key, at: keyPath, otherwise: "a column is listed twice")
    }

    // MARK: - Typed access

    /// The value at `key` converted by `convert`; a wrong-type problem and `nil` when the
    /// conversion fails, `nil` alone when the key is absent.
    private mutating func value<Value>(
        _ table: TOMLTable,
        _ key: String,
        at tablePath: Path,
        expected: String,
        _ convert: (any TOMLValueConvertible) -> Value?
    ) -> Value? {
        guard let value = table[key] else { return nil }
        return self.value(value, expected: expected, key: key, at: tablePath + [.key(key)], convert)
    }

    private mutating func value<Value>(
        _ value: any TOMLValueConvertible,
        expected: String,
        key: String,
        at path: Path,
        _ convert: (any TOMLValueConvertible) -> Value?
    ) -> Value? {
        if let converted = convert(value) { return converted }
        let found = "\(value.type)"
        let article = "aeiou".contains(found.first ?? " ") ? "an" : "a"
        self.error(.wrongType(key: key, expected: expected, found: "\(article) \(found)", at: self.location(path)))
        return nil
    }

    private mutating func string(_ table: TOMLTable, _ key: String, at tablePath: Path) -> String? {
        self.value(table, key, at: tablePath, expected: "a string", { $0.string })
    }

    /// A string that a `[[watch]]` table must have, or a missing-key problem at the table's header.
    private mutating func required(_ table: TOMLTable, _ key: String, at tablePath: Path) -> String? {
        guard table[key] != nil else {
            self.error(.missingKey(key, table: "[[watch]]", at: self.location(tablePath)))
            return nil
        }
        return self.string(table, key, at: tablePath)
    }

    private mutating func nonEmpty(_ string: String, key: String, at path: Path) -> String? {
        self.accept(string, if: !string.isEmpty, key: key, at: path, otherwise: "the string is empty")
    }

    /// A path setting, made absolute against the configuration file's directory.
    private mutating func path(_ table: TOMLTable, _ key: String, at tablePath: Path) -> String? {
        self.string(table, key, at: tablePath).flatMap { self.filePath($0, key: key, at: tablePath) }
    }

    private mutating func filePath(_ text: String, key: String, at tablePath: Path) -> String? {
        let keyPath = tablePath + [.key(key)]
        guard let text = self.nonEmpty(text, key: key, at: keyPath) else { return nil }
        guard !text.hasSuffix("/") else { return self.reject(key, at: keyPath, because: "\"\(text)\" names a directory, not a file") }
        return ConfigurationPath.resolve(text, against: self.baseDirectory)
    }

    private mutating func integer(_ table: TOMLTable, _ key: String, at tablePath: Path, in range: ClosedRange<Int>) -> Int? {
        guard let integer = self.value(table, key, at: tablePath, expected: "an integer", { $0.int }) else { return nil }
        return self.inRange(integer, range, key: key, at: tablePath + [.key(key)])
    }

    /// An integer number of milliseconds.
    private mutating func duration(
        _ table: TOMLTable,
        _ key: String,
        at tablePath: Path,
        in range: ClosedRange<Int>
    ) -> Duration? {
        self.integer(table, key, at: tablePath, in: range).map { .milliseconds($0) }
    }

    /// A user or group id.
    private mutating func id(_ value: any TOMLValueConvertible, key: String, at path: Path) -> Int? {
        self.value(value, expected: "an integer id", key: key, at: path, { $0.int }).flatMap {
            self.inRange($0, 0...Self.maximumID, key: key, at: path)
        }
    }

    private mutating func inRange(_ integer: Int, _ range: ClosedRange<Int>, key: String, at path: Path) -> Int? {
        self.accept(
            integer,
            if: range.contains(integer),
            key: key,
            at: path,
            otherwise: "\(integer) is outside \(range.lowerBound)...\(range.upperBound)"
        )
    }

    /// The elements of the array at `key`, each converted by `element` (which reports its own
    /// problems; failed elements are left out). `nil` when the key is absent or not an array.
    private mutating func list<Element>(
        _ table: TOMLTable,
        _ key: String,
        at tablePath: Path,
        expected: String,
        element: (inout ConfigurationReader, any TOMLValueConvertible, Path) -> Element?
    ) -> [Element]? {
        guard let array = self.value(table, key, at: tablePath, expected: expected, { $0.array }) else { return nil }
        let keyPath = tablePath + [.key(key)]
        return (0..<array.count).compactMap { index in element(&self, array[index], keyPath + [.index(index)]) }
    }

    // MARK: - Problems

    /// An error for every key of `table` that is not `known`, with the known key it most likely
    /// meant: a misspelt key must not silently leave its setting at the default.
    private mutating func rejectUnknownKeys(in table: TOMLTable, at path: Path, known: Set<String>, table name: String?) {
        for key in table.keys where !known.contains(key) {
            let suggestion = KeySuggestion.closest(to: key, among: known)
            self.error(.unknownKey(key, table: name, suggestion: suggestion, at: self.location(path + [.key(key)])))
        }
    }

    private mutating func error(_ problem: ConfigurationProblem) {
        self.errors.append(problem)
    }

    /// `value` when it `isAcceptable`; otherwise an invalid-value problem and `nil`.
    private mutating func accept<Value>(
        _ value: Value,
        if isAcceptable: Bool,
        key: String,
        at path: Path,
        otherwise reason: @autoclosure () -> String
    ) -> Value? {
        isAcceptable ? value : self.reject(key, at: path, because: reason())
    }

    /// Records that the value of `key` at `path` is unacceptable for `reason`; returns `nil` for
    /// the caller to return.
    private mutating func reject<Value>(_ key: String, at path: Path, because reason: String) -> Value? {
        self.error(.invalidValue(key: key, reason: reason, at: self.location(path)))
        return nil
    }

    private func location(_ path: Path) -> ConfigurationLocation {
        self.sourceMap.location(of: path, file: self.file)
    }
}
