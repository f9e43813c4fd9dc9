import Glibc

/// The package's built products (`listsyncd`, `listsync`), found next to the running test
/// bundle: SwiftPM puts products and test bundles in one directory.
package enum BuiltProducts {
    /// The path of the built product `name`; fails with what to do when it is missing.
    package static func path(_ name: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { throw TestFailure("cannot read /proc/self/exe") }
        let executable = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var directory = Substring(executable)
        // The test bundle may be a directory (`*.xctest/...`) or a file in the products directory.
        while let slash = directory.lastIndex(of: "/") {
            directory = directory[..<slash]
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return String(candidate) }
        }
        throw TestFailure("no \(name) binary next to \(executable): build the products first (swift build --build-tests)")
    }
}
