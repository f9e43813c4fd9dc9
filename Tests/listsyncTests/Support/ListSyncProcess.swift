import Glibc
import Foundation
import ListSyncTestSupport

/// The built `listsync` binary, run as a user runs it: arguments in, standard
/// output, standard error and exit status out.
struct ListSyncProcess {
    /// What one run produced.
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// The binary next to this test executable in the build directory (SwiftPM
    /// puts products and test bundles in one folder).
    static let binary = URL(fileURLWithPath: (try? BuiltProducts.path("listsync")) ?? "listsync")

    /// Runs `listsync` with `arguments` in `directory`, waiting for it without holding a
    /// thread (ListSyncTestSupport's ``ChildProcess``).
    static func execute(_ arguments: [String], in directory: URL, timeout: Duration = .seconds(60)) async throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw MissingBinary(path: binary.path)
        }
        // Output goes to files, which never fill up the way pipes do.
        let outputFile = directory.appendingPathComponent(".stdout-\(UUID().uuidString)").path
        let errorFile = directory.appendingPathComponent(".stderr-\(UUID().uuidString)").path
        defer {
            unlink(outputFile)
            unlink(errorFile)
        }
        let process = try ChildProcess(binary.path, arguments, outputPath: outputFile, errorPath: errorFile, workingDirectory: directory.path)
        let status = try await process.waitForExit(timeout: timeout)
        return Result(status: status, standardOutput: process.output, standardError: process.errorOutput)
    }

    /// Runs `listsync` with `arguments` in `directory`.
    @available(*, deprecated, message: "blocks a pool thread; use execute(_:in:timeout:)")
    static func run(_ arguments: [String], in directory: URL) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw MissingBinary(path: binary.path)
        }
        // Output goes to files, which never fill up the way pipes do.
        let outputFile = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
        let errorFile = directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
        try Data().write(to: outputFile)
        try Data().write(to: errorFile)
        defer {
            try? FileManager.default.removeItem(at: outputFile)
            try? FileManager.default.removeItem(at: errorFile)
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: try Data(contentsOf: outputFile), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
    }

    struct MissingBinary: Error, CustomStringConvertible {
        var path: String
        var description: String { "no listsync binary at \(path); build the package first (swift build)" }
    }
}
