#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

import DurableFiles

/// The bytes a list is read from and keeps: bytes in memory, possibly in pieces shared with
/// another version of the file (``FileBytes``), or a read-only mapping of the file
/// (``ListReader/read(mappingFile:)``), which costs neither fresh memory nor a copy.
enum ListSource: Sendable {
    /// Bytes in memory (``ListReader/read(bytes:)``, the daemon's reads): one piece, or, for a
    /// version read after a small change, the unchanged stretches as pieces of the previous
    /// version's storage and the changed one as a new array (issue 19).
    case bytes(FileBytes)
    /// The file's pages in the page cache, mapped.
    case mapped(MappedFileRegion)

    /// How many bytes there are.
    var count: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .mapped(let mapping): mapping.count
        }
    }

    /// Calls `body` with all the bytes as one stretch of memory: in place for one piece or a
    /// mapping, else a temporary copy of them (O(*n*): for rare uses only, such as an error's
    /// position).
    func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        switch self {
        case .bytes(let bytes):
            return try bytes.withContiguousBytes(in: 0..<bytes.count) { buffer throws(E) in try body(buffer) }
        case .mapped(let mapping):
            return try body(mapping.buffer)
        }
    }

    /// Calls `body` with the bytes in `range` as one stretch of memory: in place when one piece
    /// holds them (a record always, in a version read after a small change: no record straddles
    /// the changed stretch's ends, which are chunk boundaries), else copied.
    func withContiguousBytes<R, E: Error>(in range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        switch self {
        case .bytes(let bytes):
            return try bytes.withContiguousBytes(in: range) { buffer throws(E) in try body(buffer) }
        case .mapped(let mapping):
            return try body(UnsafeBufferPointer(rebasing: mapping.buffer[range]))
        }
    }

    /// The bytes in `range`: a slice of the storage that holds them when one piece does, a copy
    /// of them otherwise and for a mapping.
    subscript(range: Range<Int>) -> ArraySlice<UInt8> {
        switch self {
        case .bytes(let bytes):
            guard !range.isEmpty else { return [] }
            let index = bytes.pieceIndex(containing: range.lowerBound)
            let piece = bytes.pieces[index]
            let lower = piece.range.lowerBound + range.lowerBound - bytes.start(ofPiece: index)
            guard lower + range.count <= piece.range.upperBound, let array = piece.storage.array else { return ArraySlice(bytes[range].array) }
            return array[lower..<(lower + range.count)]
        case .mapped(let mapping):
            return ArraySlice(mapping.buffer[range])
        }
    }

    /// All the bytes as an array: O(1) for one piece that is a whole array, else a copy of them,
    /// O(*n*).
    var array: [UInt8] {
        switch self {
        case .bytes(let bytes): bytes.array
        case .mapped(let mapping): Array(mapping.buffer)
        }
    }

    /// Whether any of the bytes are a mapped file's (whose pages a parse may let go of).
    var holdsMappings: Bool {
        switch self {
        case .bytes(let bytes): bytes.holdsMappings
        case .mapped: true
        }
    }

    /// Lets the pages that hold `stretch` go from the resident set when it lies in a mapping
    /// these bytes hold; nothing otherwise (``FileBytes/releaseMappedPages(holding:)``).
    func releaseMappedPages(holding stretch: UnsafeRawBufferPointer) {
        switch self {
        case .bytes(let bytes): bytes.releaseMappedPages(holding: stretch)
        case .mapped(let mapping): mapping.releasePages(holding: stretch)
        }
    }

    /// The bytes as ``FileBytes``: those held, or the mapping as one piece (O(1), no copy).
    var fileBytes: FileBytes {
        switch self {
        case .bytes(let bytes): bytes
        case .mapped(let mapping): FileBytes(mapped: mapping)
        }
    }
}
