import Glibc

/// The `stat(2)` fields that move when a file's content may have changed: which file it is, its
/// size, and its modification and status-change times (nanosecond resolution).
///
/// Equal identities before and after a read mean nobody wrote the file in between — up to the
/// kernel's timestamp granularity, which is why the watcher re-announces a file on every inotify
/// event instead of trusting an unchanged identity, and uses identities only to catch what inotify
/// missed (reconciliation) and to detect torn reads (``FileSnapshot/read(atPath:maximumAttempts:)``).
public struct FileIdentity: Hashable, Sendable, CustomStringConvertible {
    public var fileID: FileID
    /// Size in bytes.
    public var size: Int64
    /// `st_mtim`, as time since the Unix epoch.
    public var modificationTime: Duration
    /// `st_ctim`, as time since the Unix epoch; moves on writes, renames over and metadata changes.
    public var statusChangeTime: Duration

    public init(fileID: FileID, size: Int64, modificationTime: Duration, statusChangeTime: Duration) {
        self.fileID = fileID
        self.size = size
        self.modificationTime = modificationTime
        self.statusChangeTime = statusChangeTime
    }

    /// The identity `stat`/`fstat`/`lstat` reported in `status`.
    public init(_ status: stat) {
        self.init(
            fileID: FileID(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)),
            size: Int64(status.st_size),
            modificationTime: Duration(status.st_mtim),
            statusChangeTime: Duration(status.st_ctim)
        )
    }

    public var description: String {
        "file \(fileID), \(size) bytes, mtime \(modificationTime), ctime \(statusChangeTime)"
    }
}

extension Duration {
    init(_ time: timespec) {
        self = .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
