import Foundation
import ListSyncTestSupport

/// Python's `csv` and `json` modules are the independent references of the readers.
extension Python {
    /// Runs `script` with the path of a file holding `input` (as JSON) as its argument; parses
    /// what it prints as JSON.
    static func run(_ script: String, input: Any) async throws -> Any {
        try JSONSerialization.jsonObject(with: Data(try await output(of: script, input: input, passing: .fileArgument).utf8))
    }
}
