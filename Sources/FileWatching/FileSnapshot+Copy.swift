import CFileSync
import DurableFiles
import Glibc

extension FileSnapshot {
    /// Reads the file at `path` as ``read(atPath:maximumAttempts:reusing:)`` does — its identity
    /// checked before and after through the descriptor and the path, read again when anything
    /// moved — but copies its bytes inside the kernel into the open file `destination` from byte
    /// `offset` (`copy_file_range`; through a bounded buffer where the kernel refuses, e.g.
    /// across file systems) and gives them as a read-only mapping of that copy.
    ///
    /// Issue 19: a daemon that saves the version whole (a checkpoint slot) copies it there and
    /// parses it from the mapping, so its first version is never whole in anonymous memory, and
    /// the pages of the mapping count in its resident set only while they are read.
    ///
    /// `destination` must be open for reading and writing; its file offset is left at the end of
    /// the copy (where what follows the bytes is written). Nothing may write or truncate its
    /// bytes from `offset` while the snapshot's bytes are held (``MappedFileRegion``). A file that
    /// moved during every attempt throws ``FileReadError/unstable(path:attempts:)``, as a read
    /// does; what an attempt that moved copied is overwritten by the next one.
    public static func copy(atPath path: String, into destination: Int32, at offset: Int, maximumAttempts: Int = 5) throws(FileReadError) -> FileSnapshot {
        try retrying(atPath: path, maximumAttempts: maximumAttempts) { () throws(FileReadError) -> FileSnapshot? in
            let outcome = try checkedAttempt(atPath: path) { (source, size) throws(FileReadError) -> (content: Int, count: Int)? in
                guard let count = try copyAll(from: source, size: size, to: destination, at: offset, path: path) else { return nil }
                return (count, count)
            }
            switch outcome {
            case .missing:
                return .missing
            case .moved:
                return nil
            case .read(let count, let identity):
                guard count > 0 else { return .present(bytes: FileBytes(), identity: identity) }
                do throws(SystemCallError) {
                    return .present(bytes: FileBytes(mapped: try MappedFileRegion(descriptor: destination, offset: offset, count: count)), identity: identity)
                } catch {
                    throw .systemCall(path: path, error)
                }
            }
        }
    }

    /// Copies the `size` bytes of `source` to `destination` from `offset`; `nil` when the file
    /// ended before `size` bytes (it moved). The copy's end is `destination`'s file offset after.
    private static func copyAll(from source: Int32, size: Int, to destination: Int32, at offset: Int, path: String) throws(FileReadError) -> Int? {
        guard lseek(destination, off_t(offset), SEEK_SET) == off_t(offset) else { throw .systemCall(path: path, .lastError(of: "lseek")) }
        var sourceOffset: Int64 = 0
        var copied = 0
        while copied < size {
            let count = listsync_copy_file_range(source, &sourceOffset, destination, UInt(size - copied))
            if count > 0 {
                copied += count
                continue
            }
            if count == 0 { return nil }
            if errno == EINTR { continue }
            guard [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP].contains(errno) else { throw .systemCall(path: path, .lastError(of: "copy_file_range")) }
            // The kernel cannot copy between these files: through memory, a bounded piece at a time.
            return try copyThroughMemory(from: source, at: copied, size: size, to: destination, path: path)
        }
        return copied
    }

    /// The piece of a copy that goes through memory: 1 MiB at a time, so the file is never whole in it.
    static let copyPieceSize = 1 << 20

    /// ``copyAll(from:size:to:at:path:)`` from byte `start` on, with `pread` and `write`.
    private static func copyThroughMemory(from source: Int32, at start: Int, size: Int, to destination: Int32, path: String) throws(FileReadError) -> Int? {
        var buffer = [UInt8](repeating: 0, count: min(copyPieceSize, max(size - start, 1)))
        var copied = start
        while copied < size {
            let count = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress, min($0.count, size - copied), off_t(copied)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .systemCall(path: path, .lastError(of: "pread"))
            }
            if count == 0 { return nil }
            do throws(SystemCallError) {
                try FileDescriptorIO.writeAll(Array(buffer[..<count]), to: destination)
            } catch {
                throw .systemCall(path: path, error)
            }
            copied += count
        }
        return copied
    }
}
