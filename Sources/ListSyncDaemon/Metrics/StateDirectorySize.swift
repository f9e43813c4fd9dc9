#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The bytes a watch's state takes on disk, for `listsync_state_bytes`.
enum StateDirectorySize {
    /// The sum of the sizes of the regular files directly in `directory`; 0 when it cannot be
    /// read (no state yet, or the daemon keeps none).
    ///
    /// - Complexity: one `stat` per entry (a watch's directory holds a handful of files).
    static func bytes(in directory: String) -> Int {
        guard let stream = opendir(directory) else { return 0 }
        defer { closedir(stream) }
        var total = 0
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            var status = stat()
            guard stat(directory + "/" + name, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            total += Int(status.st_size)
        }
        return total
    }
}
