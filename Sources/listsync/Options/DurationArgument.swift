import ArgumentParser

/// A duration given on the command line as a number and a unit: `500ms`, `30s`, `2m`, `1h`
/// (`exec --timeout`).
struct DurationArgument: ExpressibleByArgument, CustomStringConvertible, Sendable {
    /// The duration.
    let duration: Duration
    /// How it was written, for messages.
    let description: String

    /// The units accepted, longest suffix first so that `ms` is not read as `m`.
    private static let units: [(suffix: String, milliseconds: Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]

    init(milliseconds: Int64, description: String) {
        self.duration = .milliseconds(milliseconds)
        self.description = description
    }

    /// `NUMBER UNIT` with a whole, positive number; `nil` for anything else.
    init?(argument: String) {
        for unit in Self.units where argument.hasSuffix(unit.suffix) {
            guard let count = Int64(argument.dropLast(unit.suffix.count)), count > 0,
                case let (milliseconds, overflow) = count.multipliedReportingOverflow(by: unit.milliseconds), !overflow
            else { return nil }
            self.init(milliseconds: milliseconds, description: argument)
            return
        }
        return nil
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
