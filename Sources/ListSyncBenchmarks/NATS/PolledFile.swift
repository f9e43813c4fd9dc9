import Foundation

/// A file another process rewrites (a `listsync mirror --output` file), polled: read again only
/// when its inode, size or modification time changed since the last look, so that polling it
/// every millisecond costs a `stat`, not a read of the whole list.
struct PolledFile {
    let path: String
    /// What `stat` said when the file was last read.
    private var seen: [Int] = []
    /// The file's bytes as last read; `nil` while it does not exist.
    private(set) var contents: Data?

    init(path: String) {
        self.path = path
    }

    /// Looks at the file, reading it again if it changed.
    mutating func refresh() {
        var status = stat()
        guard stat(self.path, &status) == 0 else {
            self.seen = []
            self.contents = nil
            return
        }
        let now = [Int(status.st_ino), Int(status.st_size), status.st_mtim.tv_sec, status.st_mtim.tv_nsec]
        guard now != self.seen else { return }
        self.seen = now
        self.contents = FileManager.default.contents(atPath: self.path)
    }
}
