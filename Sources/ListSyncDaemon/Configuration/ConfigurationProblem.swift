/// One thing wrong with a configuration file, with where it is.
///
/// The loader collects every problem it finds rather than stopping at the first, so
/// `listsyncd --check-config` can list them all. Every problem is an error (reported through
/// ``ConfigurationError``) except ``noWatches``, a warning (reported in
/// ``LoadedConfiguration/warnings``). An unknown key is an error: a misspelt `key` would
/// otherwise leave a watch silently keyless.
public enum ConfigurationProblem: Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read; `reason` is the system's explanation.
    case unreadable(file: String, reason: String)
    /// The bytes are not valid UTF-8 text, or contain a NUL byte.
    case invalidEncoding(reason: String, at: ConfigurationLocation)
    /// The text is not valid TOML; `message` is the TOML parser's explanation.
    case syntax(message: String, at: ConfigurationLocation)
    /// A key or table the daemon does not know, in `table` (`"[[watch]]"`; `nil`: the top level),
    /// with the known key it most likely meant, if one is close.
    case unknownKey(String, table: String?, suggestion: String?, at: ConfigurationLocation)
    /// A value of the wrong TOML type, e.g. a number where a string belongs.
    case wrongType(key: String, expected: String, found: String, at: ConfigurationLocation)
    /// A required key is absent from the table that starts at the location.
    case missingKey(String, table: String, at: ConfigurationLocation)
    /// A `format` that is none of csv, tsv, json and ndjson.
    case unknownFormat(String, at: ConfigurationLocation)
    /// No `format` was given and the path's extension does not imply one.
    case formatNotInferable(path: String, at: ConfigurationLocation)
    /// Two `[[watch]]` tables share a name.
    case duplicateWatchName(String, at: ConfigurationLocation, firstDefinedAt: ConfigurationLocation)
    /// A `socket_mode` that is not an octal permission string such as `"0660"`.
    case invalidSocketMode(String, at: ConfigurationLocation)
    /// A value of the right type that is not acceptable; `reason` says why.
    case invalidValue(key: String, reason: String, at: ConfigurationLocation)
    /// The file has no `[[watch]]` table, so the daemon would serve nothing (a warning).
    case noWatches(file: String)

    /// Where the problem is, when it has a position.
    public var location: ConfigurationLocation? {
        switch self {
        case .unreadable, .noWatches:
            return nil
        case .invalidEncoding(_, let at), .syntax(_, let at), .unknownKey(_, _, _, let at),
            .wrongType(_, _, _, let at), .missingKey(_, _, let at), .unknownFormat(_, let at),
            .formatNotInferable(_, let at), .duplicateWatchName(_, let at, _), .invalidSocketMode(_, let at),
            .invalidValue(_, _, let at):
            return at
        }
    }

    /// Whether the problem is only a warning: the configuration still loads.
    public var isWarning: Bool {
        if case .noWatches = self { return true }
        return false
    }

    /// `file:line:column: error: message` (or `warning:`), without the position when there is
    /// none: the form compilers use, which editors and terminals recognise.
    public var description: String {
        let place: String
        switch self {
        case .unreadable(let file, _), .noWatches(let file): place = file
        default: place = self.location?.description ?? ""
        }
        return "\(place): \(self.isWarning ? "warning" : "error"): \(self.message)"
    }

    /// What is wrong, without the place.
    public var message: String {
        switch self {
        case .unreadable(_, let reason):
            return "cannot read the configuration: \(reason)"
        case .noWatches:
            return "no [[watch]] table: the daemon will serve nothing"
        case .invalidEncoding(let reason, _):
            return reason
        case .syntax(let message, _):
            return "TOML syntax error: \(message)"
        case .unknownKey(let key, let table, let suggestion, _):
            let hint = suggestion.map { "; did you mean \"\($0)\"?" } ?? ""
            return "unknown key \"\(key)\" \(table.map { "in \($0)" } ?? "at the top level")\(hint)"
        case .wrongType(let key, let expected, let found, _):
            return "'\(key)' must be \(expected), not \(found)"
        case .missingKey(let key, let table, _):
            return "\(table) has no '\(key)'"
        case .unknownFormat(let format, _):
            let known = WatchConfiguration.Format.allCases.map(\.rawValue).joined(separator: ", ")
            return "unknown format \"\(format)\" (expected one of \(known))"
        case .formatNotInferable(let path, _):
            return "cannot tell the format of \"\(path)\" from its extension: add format = \"csv\", \"tsv\", \"json\" or \"ndjson\""
        case .duplicateWatchName(let name, _, let first):
            return "a watch named \"\(name)\" is already defined at line \(first.line)"
        case .invalidSocketMode(let mode, _):
            return "socket_mode \"\(mode)\" is not an octal permission string such as \"0660\""
        case .invalidValue(let key, let reason, _):
            return "invalid '\(key)': \(reason)"
        }
    }
}
