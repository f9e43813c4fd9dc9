/// The canonical key bytes a reader had to build because the file does not
/// hold them as they are: composite keys, keys with escapes or doubled quotes.
///
/// The reader appends while it scans and seals the arena when the list is
/// complete; from then on it never changes, which is what makes sharing it
/// between threads safe (hence `@unchecked Sendable`), and what lets
/// identities point into it. Keys start on 8-byte boundaries and are found
/// by their slot (offset / 8), which a 32-bit reference holds for arenas up
/// to 32 GiB.
@usableFromInline
final class KeyArena: @unchecked Sendable {
    @usableFromInline
    struct Header {
        @usableFromInline var base: UnsafeMutableRawPointer?
        var count = 0
        var capacity = 0
        var isSealed = false

        init() {}
    }

    @usableFromInline let header: UnsafeMutablePointer<Header>

    init() {
        header = .allocate(capacity: 1)
        header.initialize(to: Header())
    }

    deinit {
        header.pointee.base?.deallocate()
        header.deinitialize(count: 1)
        header.deallocate()
    }

    /// Appends `bytes`; returns their slot. Only before ``seal()``.
    func append(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        precondition(!header.pointee.isSealed, "appending to a sealed key arena")
        let offset = (header.pointee.count + 7) & ~7
        precondition(offset / 8 <= Int(UInt32.max), "key arena beyond 32 GiB")
        if header.pointee.base == nil || offset + bytes.count > header.pointee.capacity {
            grow(to: offset + bytes.count)
        }
        if let source = bytes.baseAddress, let base = header.pointee.base {
            (base + offset).copyMemory(from: source, byteCount: bytes.count)
        }
        header.pointee.count = offset + bytes.count
        return UInt32(offset / 8)
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

    /// The first byte of slot `slot`; only after ``seal()``.
    @inlinable
    func address(ofSlot slot: UInt32) -> UnsafeRawPointer {
        // Slots exist only in an arena that has bytes.
        UnsafeRawPointer(header.pointee.base.unsafelyUnwrapped) + Int(slot) &* 8
    }

    /// All bytes appended so far.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: header.pointee.base, count: header.pointee.count)
    }
}
