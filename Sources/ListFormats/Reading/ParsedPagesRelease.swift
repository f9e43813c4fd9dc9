import DurableFiles

/// Lets go of the pages of a version held as a mapping (issue 19: the daemon's saved versions,
/// mapped from its state files) that a parse in place has gone through, a stretch of
/// ``FileBytes/mappedStretchLength`` bytes at a time: a first read or a restore of a large file
/// then keeps about a stretch of it resident rather than all of it. The bytes stay the same (a
/// page let go of is read back from the page cache when touched again); bytes in memory, or a
/// copy of mapped ones, are never released.
struct ParsedPagesRelease {
    private let storage: ListStorage
    private let buffer: UnsafeBufferPointer<UInt8>
    /// The bytes of `buffer` before this are let go of.
    private var released: Int
    private let releases: Bool

    /// A release of what a parse of `buffer` (the file's bytes, or a window of them, that
    /// `storage` holds) from `start` goes through.
    init(storage: ListStorage, buffer: UnsafeBufferPointer<UInt8>, from start: Int) {
        self.storage = storage
        self.buffer = buffer
        self.released = start
        self.releases = storage.source.holdsMappings
    }

    /// The parse has gone through the bytes before `index`: lets them go once a stretch of them
    /// is not let go of yet.
    @inline(__always)
    mutating func passed(_ index: Int) {
        guard self.releases, index - self.released >= FileBytes.mappedStretchLength else { return }
        self.release(upTo: index)
    }

    /// The parse is done at `index`: lets go of the rest it went through.
    mutating func finish(at index: Int) {
        guard self.releases else { return }
        self.release(upTo: index)
    }

    private mutating func release(upTo index: Int) {
        let end = min(index, self.buffer.count)
        guard end > self.released else { return }
        self.storage.source.releaseMappedPages(holding: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: self.buffer[self.released..<end])))
        self.released = end
    }
}
