/// The configuration could not be loaded: every error found, in file order.
///
/// Thrown by ``DaemonConfiguration/load(file:environment:)`` and
/// ``DaemonConfiguration/parse(toml:file:environment:)``; `listsyncd --check-config` prints
/// ``description`` and exits 1.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The errors, never empty, ordered by position (problems without one come first).
    public var problems: [ConfigurationProblem]

    /// Creates an error from at least one problem.
    public init(problems: [ConfigurationProblem]) {
        precondition(!problems.isEmpty, "a configuration error needs at least one problem")
        self.problems = problems
    }

    /// One line per problem.
    public var description: String {
        self.problems.map(\.description).joined(separator: "\n")
    }
}
