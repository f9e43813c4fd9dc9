#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DurableFiles

/// The entries of a ``StateJournal``, each checked against its checksum when the journal is
/// read, and each body read from the file again when asked for: a restarted mirror holds one
/// entry (a snapshot chunk) at a time beside the list it replays, not also the whole file, whose
/// snapshot is larger than the list's own file.
///
/// A journal of the builds before (``LegacyStateJournal``), small and read once, is kept in
/// memory.
final class JournalEntries {
    private enum Storage {
        /// The bodies, in memory.
        case memory([ArraySlice<UInt8>])
        /// The file, open for reading, and where each body lies in it.
        case file(descriptor: Int32, path: String, bodies: [Range<Int>])
    }

    private let storage: Storage

    /// Entries held in memory.
    init(_ bodies: [ArraySlice<UInt8>]) {
        self.storage = .memory(bodies)
    }

    /// The entries at `bodies` of the file open as `descriptor` (which they close).
    init(descriptor: Int32, path: String, bodies: [Range<Int>]) {
        self.storage = .file(descriptor: descriptor, path: path, bodies: bodies)
    }

    deinit {
        if case .file(let descriptor, _, _) = self.storage { close(descriptor) }
    }

    /// The number of entries.
    var count: Int {
        switch self.storage {
        case .memory(let bodies): return bodies.count
        case .file(_, _, let bodies): return bodies.count
        }
    }

    var isEmpty: Bool { self.count == 0 }

    /// The size of entry `index`'s body. O(1).
    func size(of index: Int) -> Int {
        switch self.storage {
        case .memory(let bodies): return bodies[index].count
        case .file(_, _, let bodies): return bodies[index].count
        }
    }

    /// Entry `index`'s body. O(its size).
    ///
    /// - Throws: ``SystemCallError`` (`pread`) when the file cannot be read, or has shrunk.
    func body(at index: Int) throws(SystemCallError) -> ArraySlice<UInt8> {
        switch self.storage {
        case .memory(let bodies):
            return bodies[index]
        case .file(let descriptor, let path, let bodies):
            return ArraySlice(try Self.read(bodies[index], of: descriptor, path: path))
        }
    }

    /// The bytes at `range` of the file open as `descriptor`.
    ///
    /// - Throws: ``SystemCallError`` (`pread`); `EIO` when the file ends before `range` does.
    static func read(_ range: Range<Int>, of descriptor: Int32, path: String) throws(SystemCallError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: range.count)
        var done = 0
        while done < range.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw count < 0
                    ? SystemCallError.lastError(of: "pread", path: path, operation: "read")
                    : SystemCallError(call: "pread", code: EIO, path: path, operation: "read")
            }
            done += count
        }
        return bytes
    }
}
