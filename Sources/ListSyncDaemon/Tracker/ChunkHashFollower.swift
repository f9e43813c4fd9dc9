import FileWatching
import ListFormats

/// Takes the incremental reader's chunk hashes (``IncrementalListReader/ReadHashes``) as the
/// watched file's read brings its bytes in (``FileReadFollower``): FileWatching knows nothing of
/// list formats, ListFormats nothing of reading files; the tracker, which uses both, joins them.
struct ChunkHashFollower: FileReadFollower {
    /// The hashes taken so far.
    var hashes: IncrementalListReader.ReadHashes

    mutating func begin(size: Int) {
        hashes.begin(size: size)
    }

    mutating func follow(_ bytes: UnsafeRawBufferPointer) {
        hashes.follow(bytes)
    }
}
