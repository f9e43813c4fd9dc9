import ArgumentParser

extension ParsableCommand {
    /// Ends the process with `status` while `values` are still in memory.
    ///
    /// A command that read a large list is done once its output is written;
    /// releasing a million records one by one would take tens of milliseconds
    /// more than the process needs.
    static func finish<Values>(with status: ExitCode, keeping values: Values) -> Never {
        withExtendedLifetime(values) {
            exit(withError: status)
        }
    }
}
