#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes a list is read from and keeps: an array, or a read-only mapping of the file
/// (``ListReader/read(mappingFile:)``), which costs neither fresh memory nor a copy.
enum ListSource: Sendable {
    /// Bytes in memory (``ListReader/read(bytes:)``, the daemon's reads).
    case array([UInt8])
    /// The file's pages in the page cache, mapped.
    case mapped(FileMapping)

    /// How many bytes there are.
    var count: Int {
        switch self {
        case .array(let bytes): bytes.count
        case .mapped(let mapping): mapping.count
        }
    }

    /// Calls `body` with the bytes.
    func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        switch self {
        case .array(let bytes):
            return try bytes.withUnsafeBufferPointer { buffer throws(E) in try body(buffer) }
        case .mapped(let mapping):
            return try body(mapping.buffer)
        }
    }

    /// The bytes in `range`; a copy of them for a mapping.
    subscript(range: Range<Int>) -> ArraySlice<UInt8> {
        switch self {
        case .array(let bytes): bytes[range]
        case .mapped(let mapping): ArraySlice(mapping.buffer[range])
        }
    }

    /// All the bytes as an array; a copy of them for a mapping. O(*n*) then.
    var array: [UInt8] {
        switch self {
        case .array(let bytes): bytes
        case .mapped(let mapping): Array(mapping.buffer)
        }
    }
}

/// A whole regular file mapped read-only (`MAP_PRIVATE`, populated at once), unmapped when the
/// last list that reads from it goes.
///
/// The pages are the page cache's: nothing is zeroed or copied, which for a 100 MB file is
/// most of what reading it into a fresh array costs (`listsync diff`). A file truncated by
/// another program while it is mapped makes reading past its new end fail with `SIGBUS`, so
/// only a one-shot reader of files that are replaced, not rewritten in place, should map them.
final class FileMapping: @unchecked Sendable {
    /// The mapped bytes; never written (`PROT_READ`).
    let buffer: UnsafeBufferPointer<UInt8>

    var count: Int { buffer.count }

    /// Maps `count` (> 0) bytes of the open file `descriptor` from its start; `nil` with
    /// `errno` set when the file cannot be mapped (not a regular file, no memory).
    init?(descriptor: Int32, count: Int) {
        let address = mmap(nil, count, PROT_READ, MAP_PRIVATE | MAP_POPULATE, descriptor, 0)
        guard let address, address != MAP_FAILED else { return nil }
        self.buffer = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: count)
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: buffer.baseAddress), buffer.count)
    }
}
