#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOPosix

/// The bytes a watch's state takes on disk, for `listsync_state_bytes`.
enum StateDirectorySize {
    /// The sum of the sizes of the regular files directly in `directory`; 0 when it cannot be
    /// read (no state yet, or the daemon keeps none).
    ///
    /// Blocks on the disk: never call it on an event loop (debug builds check), a slow disk
    /// would hold up every connection of the loop.
    ///
    /// - Complexity: one `stat` per entry (a watch's directory holds a handful of files).
    static func bytes(in directory: String) -> Int {
        assert(MultiThreadedEventLoopGroup.currentEventLoop == nil, "the state directory is measured on an event loop")
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
