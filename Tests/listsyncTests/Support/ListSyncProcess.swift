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

    struct MissingBinary: Error, CustomStringConvertible {
        var path: String
        var description: String { "no listsync binary at \(path); build the package first (swift build)" }
    }
}
