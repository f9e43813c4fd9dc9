import Foundation

/// Runs one measurement of peak memory in a child process of this benchmark
/// binary, so that each measurement starts from a fresh heap.
enum MemoryProbe {
    /// The peak memory growth the child reports for `arguments`, or nil.
    static func run(_ arguments: [String]) -> Int? {
        output(arguments)?
            .split(separator: "\n").last
            .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// What a child process of this benchmark binary, run with `arguments`,
    /// prints on standard output; nil when it cannot be started or fails.
    static func output(_ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            return nil
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
