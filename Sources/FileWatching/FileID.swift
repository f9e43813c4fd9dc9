/// Which file a path names: device and inode number.
///
/// Survives renames of the file itself; changes when a save replaces the file
/// (write temp + rename over, delete + recreate, vim's backup dance).
public struct FileID: Hashable, Sendable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    public var description: String { "\(device):\(inode)" }
}
