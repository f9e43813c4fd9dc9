#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A fresh directory under `/tmp` for one test, removed with everything in it when released.
/// Short on purpose: Unix socket paths inside it must fit in 107 bytes.
final class ScratchDirectory {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let path: String

    init() throws {
        var template = Array("/tmp/lsd-XXXXXX".utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw Failure(description: "mkdtemp failed: errno \(errno)")
        }
        self.path = String(cString: created)
    }

    /// Writes `contents` to the file `name` inside the directory.
    func write(_ contents: String, to name: String) throws {
        let descriptor = open(self.path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(description: "open \(name): errno \(errno)") }
        defer { close(descriptor) }
        let bytes = Array(contents.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw Failure(description: "write \(name): errno \(errno)") }
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
