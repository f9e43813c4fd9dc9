/// The canonical key bytes a reader had to build because the file does not
/// hold them as they are: composite keys, keys with escapes or doubled quotes.
///
/// The reader appends while it scans and seals the arena when the list is
/// complete; from then on it never changes, which is what makes sharing it
/// between threads safe (hence `@unchecked Sendable`). The bytes live behind
/// a pointer, so reading them costs no reference counting and no
/// exclusivity check — identities read them on every equality test.
final class KeyArena: @unchecked Sendable {
    private struct Header {
        var base: UnsafeMutableRawPointer?
        var count = 0
        var capacity = 0
        var isSealed = false
    }

    private let header: UnsafeMutablePointer<Header>

    init() {
        header = .allocate(capacity: 1)
        header.initialize(to: Header())
    }

    deinit {
        header.pointee.base?.deallocate()
        header.deinitialize(count: 1)
        header.deallocate()
    }

    /// Appends `bytes`; returns their offset. Only before ``seal()``.
    func append(_ bytes: UnsafeRawBufferPointer) -> Int {
        precondition(!header.pointee.isSealed, "appending to a sealed key arena")
        let offset = header.pointee.count
        if offset + bytes.count > header.pointee.capacity {
            grow(to: offset + bytes.count)
        }
        if let source = bytes.baseAddress, let base = header.pointee.base {
            (base + offset).copyMemory(from: source, byteCount: bytes.count)
        }
        header.pointee.count += bytes.count
        return offset
    }

    private func grow(to needed: Int) {
        var capacity = max(header.pointee.capacity * 2, 4096)
        while capacity < needed { capacity *= 2 }
        let base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        if let old = header.pointee.base {
            base.copyMemory(from: old, byteCount: header.pointee.count)
            old.deallocate()
        }
        header.pointee.base = base
        header.pointee.capacity = capacity
    }

    /// Ends appending: the arena is immutable from now on.
    func seal() {
        header.pointee.isSealed = true
    }

    /// All bytes appended so far.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: header.pointee.base, count: header.pointee.count)
    }
}
