@testable import ListSyncDaemon

/// An environment for a non-root user with the usual XDG variables.
let userEnvironment = ProcessEnvironment(
    variables: ["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/ada"],
    userID: 1000,
    processID: 4242,
    workingDirectory: "/home/ada"
)

/// An environment for root without any variables.
let rootEnvironment = ProcessEnvironment(variables: [:], userID: 0, processID: 1, workingDirectory: "/")

/// The configuration file the catalogue pretends to read.
let configurationFile = "/etc/listsyncd/listsyncd.toml"

/// Parses `toml` as `configurationFile` in `environment`.
func parse(_ toml: String, environment: ProcessEnvironment = userEnvironment) throws(ConfigurationError) -> LoadedConfiguration {
    try DaemonConfiguration.parse(toml: toml, file: configurationFile, environment: environment)
}

/// The problems of `toml`, which must fail to load; empty (and the test fails) when it loads.
func problems(of toml: String) -> [ConfigurationProblem] {
    do {
        _ = try parse(toml)
        return []
    } catch {
        return error.problems
    }
}

/// The name of a problem's case, so catalogue entries can state the kind they expect.
func kind(of problem: ConfigurationProblem) -> String {
    switch problem {
    case .unreadable: return "unreadable"
    case .invalidEncoding: return "invalidEncoding"
    case .syntax: return "syntax"
    case .unknownKey: return "unknownKey"
    case .wrongType: return "wrongType"
    case .missingKey: return "missingKey"
    case .unknownFormat: return "unknownFormat"
    case .formatNotInferable: return "formatNotInferable"
    case .duplicateWatchName: return "duplicateWatchName"
    case .invalidSocketMode: return "invalidSocketMode"
    case .invalidValue: return "invalidValue"
    case .noWatches: return "noWatches"
    }
}
