/// One thing wrong with a configuration file, with where it is.
///
/// The loader collects every problem it finds rather than stopping at the first, so
/// `listsyncd --check-config` can list them all. Most problems are errors (reported through
/// ``ConfigurationError``); ``unknownKey(_:at:)`` and ``noWatches`` are warnings (reported in
/// ``LoadedConfiguration/warnings``) so that a file written for a newer daemon still loads.
public enum ConfigurationProblem: Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read; `reason` is the system's explanation.
    case unreadable(file: String, reason: String)
    /// The bytes are not valid UTF-8 text, or contain a NUL byte.
    case invalidEncoding(reason: String, at: ConfigurationLocation)
    /// The text is not valid TOML; `message` is the TOML parser's explanation.
    case syntax(message: String, at: ConfigurationLocation)
    /// A key or table the daemon does not know (a warning).
    case unknownKey(String, at: ConfigurationLocation)
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
        case .invalidEncoding(_, let at), .syntax(_, let at), .unknownKey(_, let at),
            .wrongType(_, _, _, let at), .missingKey(_, _, let at), .unknownFormat(_, let at),
            .formatNotInferable(_, let at), .duplicateWatchName(_, let at, _), .invalidSocketMode(_, let at),
            .invalidValue(_, _, let at):
            return at
        }
    }

    /// `file:line:column: message`, or `file: message` when there is no position.
    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot read the configuration: \(reason)"
        case .noWatches(let file):
            return "\(file): no [[watch]] table: the daemon will serve nothing"
        case .invalidEncoding(let reason, let at):
            return "\(at): \(reason)"
        case .syntax(let message, let at):
            return "\(at): TOML syntax error: \(message)"
        case .unknownKey(let key, let at):
            return "\(at): unknown key '\(key)' (ignored)"
        case .wrongType(let key, let expected, let found, let at):
            return "\(at): '\(key)' must be \(expected), not \(found)"
        case .missingKey(let key, let table, let at):
            return "\(at): \(table) has no '\(key)'"
        case .unknownFormat(let format, let at):
            let known = WatchConfiguration.Format.allCases.map(\.rawValue).joined(separator: ", ")
            return "\(at): unknown format \"\(format)\" (expected one of \(known))"
        case .formatNotInferable(let path, let at):
            return "\(at): cannot tell the format of \"\(path)\" from its extension: add format = \"csv\", \"tsv\", \"json\" or \"ndjson\""
        case .duplicateWatchName(let name, let at, let first):
            return "\(at): a watch named \"\(name)\" is already defined at line \(first.line)"
        case .invalidSocketMode(let mode, let at):
            return "\(at): socket_mode \"\(mode)\" is not an octal permission string such as \"0660\""
        case .invalidValue(let key, let reason, let at):
            return "\(at): invalid '\(key)': \(reason)"
        }
    }
}
