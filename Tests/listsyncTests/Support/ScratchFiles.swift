import Foundation
import ListSyncTestSupport

/// A fresh temporary directory for one test's files, removed when the test
/// is done.
final class ScratchFiles {
    /// The shared scratch directory (ListSyncTestSupport), which removes itself.
    private let scratch: ScratchDirectory
    let directory: URL

    init() throws {
        self.scratch = try ScratchDirectory(prefix: "listsync-tests")
        self.directory = URL(fileURLWithPath: self.scratch.path, isDirectory: true)
    }

    /// Writes `contents` to `name` in the directory and returns `name`.
    @discardableResult
    func write(_ name: String, _ contents: String) throws -> String {
        try Data(contents.utf8).write(to: directory.appendingPathComponent(name))
        return name
    }

    /// Runs `listsync` with `arguments` in the directory, waiting without holding a thread.
    func runListsync(_ arguments: String...) async throws -> ListSyncProcess.Result {
        try await ListSyncProcess.execute(arguments, in: directory)
    }
}

/// The JSON values of a text: one document, or one per line for NDJSON.
enum JSONText {
    static func value(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    static func lines(_ text: String) throws -> [Any] {
        try text.split(separator: "\n").map { try value(String($0)) }
    }
}
