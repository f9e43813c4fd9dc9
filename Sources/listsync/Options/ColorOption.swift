import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// When to color output.
enum ColorOption: String, CaseIterable, ExpressibleByArgument {
    /// When standard output is a terminal and `NO_COLOR` is not set.
    case auto
    case always
    case never

    /// The style for an output that is (or is not) a terminal.
    func style(isTerminal: Bool) -> TerminalStyle {
        switch self {
        case .always: .colored
        case .never: .plain
        case .auto: isTerminal && getenv("NO_COLOR") == nil ? .colored : .plain
        }
    }
}
