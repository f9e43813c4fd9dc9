import Foundation
import ListSyncTestSupport
import Testing

/// The tests wait without holding a thread of the cooperative pool (issue 18, item 5): no test
/// helper keeps a blocking form beside its async one — none is marked deprecated for blocking a
/// pool thread, and the blocking `eventually` is gone — so no test can call one again.
@Suite struct NonBlockingTestSupportTests {
    /// What marked a blocking form, and the blocking poll, spelled apart so this file does not hold them.
    static let forbidden = ["deprecated, message: \"blocks a pool " + "thread", "eventually" + "Blocking("]

    @Test func noTestSourceKeepsABlockingFormOfAHelper() throws {
        let tests = RepositoryFiles.path("Tests")
        let files = try #require(FileManager.default.subpathsOfDirectory(atPath: tests).filter { $0.hasSuffix(".swift") })
        #expect(files.count > 50, "the test sources are found")
        var offenders: [String] = []
        for file in files {
            let text = try String(contentsOfFile: tests + "/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where Self.forbidden.contains(where: line.contains) {
                offenders.append("Tests/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }
}
