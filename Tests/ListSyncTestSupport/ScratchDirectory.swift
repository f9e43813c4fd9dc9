import Glibc

/// A fresh directory under `/tmp` for one test's files, removed with everything in it when
/// released. Its name is short on purpose: Unix socket paths inside it must fit in 107 bytes.
package final class ScratchDirectory {
    /// The directory's absolute path.
    package let path: String

    /// Makes `/tmp/PREFIX-XXXXXX`.
    package init(prefix: String = "lsd") throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw TestFailure("mkdtemp: \(String(cString: strerror(errno)))") }
        self.path = String(cString: created)
    }

    /// The path of `name` inside the directory.
    package func path(_ name: String) -> String {
        self.path + "/" + name
    }

    /// Writes `contents` to the file `name` inside the directory.
    package func write(_ contents: String, to name: String) throws {
        try FileContent.write(contents, to: self.path(name))
    }

    deinit {
        Self.removeTree(self.path)
    }

    private static func removeTree(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFDIR, let directory = opendir(path) else {
            unlink(path)
            return
        }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { Self.removeTree(path + "/" + name) }
        }
        closedir(directory)
        rmdir(path)
    }
}
