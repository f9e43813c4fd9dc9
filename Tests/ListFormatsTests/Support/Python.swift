import Foundation

/// Runs a Python 3 script over a JSON input and returns its JSON output:
/// Python's `csv` and `json` modules are the independent references.
enum Python {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `script` with the path of a file holding `input` (as JSON) as its
    /// argument; parses what it prints as JSON.
    static func run(_ script: String, input: Any) throws -> Any {
        let directory = FileManager.default.temporaryDirectory
        let inputURL = directory.appendingPathComponent("listformats-python-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: input).write(to: inputURL)
        defer { try? FileManager.default.removeItem(at: inputURL) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, inputURL.path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "python3 failed: \(errorText)") }
        return try JSONSerialization.jsonObject(with: data)
    }
}
