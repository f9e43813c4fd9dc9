/// Files of this repository that tests read (fixtures, examples), found from this source file's
/// place in the checkout: `Tests/ListSyncTestSupport/` is two levels below the repository root.
package enum RepositoryFiles {
    /// The repository's root directory.
    package static let root: String = {
        var path = "\(#filePath)"
        for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
        return path
    }()

    /// `Tests/Fixtures/NAME`: a directory of fixture files checked into the repository.
    package static func fixtures(_ name: String) -> String {
        root + "/Tests/Fixtures/" + name
    }

    /// The path of `relative` (e.g. `examples/python/mirror.py`) inside the repository.
    package static func path(_ relative: String) -> String {
        root + "/" + relative
    }
}
