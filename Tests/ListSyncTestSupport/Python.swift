import Foundation

/// Runs Python 3 scripts, the independent references of the tests (`hashlib` for digests, `csv`
/// and `json` for the readers).
package enum Python {
    /// How a script receives its JSON input.
    package enum InputPassing: Sendable {
        /// On standard input (the script reads `sys.stdin`).
        case standardInput
        /// In a file whose path is the script's first argument (`sys.argv[1]`).
        case fileArgument
    }

    /// Runs `script` with `input` as JSON, passed as `passing` says; returns what it prints.
    /// Python is a ``ChildProcess`` whose output goes to a file (never a pipe that fills up), its
    /// exit awaited (at most `timeout`) without holding a thread of the cooperative pool.
    package static func output(
        of script: String, input: Any, passing: InputPassing, timeout: Duration = .seconds(60)
    ) async throws -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("listsync-python-\(UUID().uuidString)").path
        let (inputPath, outputPath, errorPath) = (base + ".json", base + ".out", base + ".err")
        try JSONSerialization.data(withJSONObject: input).write(to: URL(fileURLWithPath: inputPath))
        defer { [inputPath, outputPath, errorPath].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let arguments: [String]
        switch passing {
        case .standardInput:
            arguments = ["-c", "exec python3 -c \"$0\" < \"$1\"", script, inputPath]
        case .fileArgument:
            arguments = ["-c", "exec python3 -c \"$0\" \"$1\"", script, inputPath]
        }
        let process = try ChildProcess("/bin/sh", arguments, outputPath: outputPath, errorPath: errorPath)
        guard try await process.waitForExit(timeout: timeout) == 0 else { throw TestFailure("python3 failed: \(process.errorOutput)") }
        return process.output
    }
}
