/// A growable byte buffer: readers reuse it for canonical forms and keys,
/// writers build their output in it.
///
/// Noncopyable and pointer-based so that appending in a hot loop costs a
/// capacity check and a copy, nothing more (no uniqueness or exclusivity
/// checks). Readers use it as a stack: a nested value appends above the
/// current top and truncates back when done.
struct ByteScratch: ~Copyable {
    private var storage: ScratchArray<UInt8>

    init(capacity: Int = 4096) {
        storage = ScratchArray(capacity: max(capacity, 16))
    }

    /// The number of bytes in use.
    var count: Int { storage.count }

    private var base: UnsafeMutablePointer<UInt8> { storage.baseAddress }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        storage.append(byte)
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        let destination = UnsafeMutableRawPointer(storage.appendUninitialized(count: length))
        let source = UnsafeRawPointer(bytes)
        // Short copies (names, numbers, most strings) without a call to memmove:
        // two overlapping word copies.
        if length >= 8, length <= 16 {
            destination.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
            (destination + length - 8).storeBytes(
                of: (source + length - 8).loadUnaligned(as: UInt64.self), as: UInt64.self)
        } else if length >= 4, length < 8 {
            destination.storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
            (destination + length - 4).storeBytes(
                of: (source + length - 4).loadUnaligned(as: UInt32.self), as: UInt32.self)
        } else {
            destination.copyMemory(from: source, byteCount: length)
        }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        append(source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }

    /// Appends the little-endian bytes of `value`.
    @inline(__always)
    mutating func append(littleEndian value: UInt64) {
        UnsafeMutableRawPointer(storage.appendUninitialized(count: 8)).storeBytes(of: value.littleEndian, as: UInt64.self)
    }

    /// Appends the little-endian bytes of `value`.
    @inline(__always)
    mutating func append(littleEndian value: UInt32) {
        UnsafeMutableRawPointer(storage.appendUninitialized(count: 4)).storeBytes(of: value.littleEndian, as: UInt32.self)
    }

    /// Overwrites four bytes at `offset` (a length prefix written before its
    /// value was known).
    mutating func store(littleEndian value: UInt32, at offset: Int) {
        precondition(offset + 4 <= count, "store past the end of the scratch buffer")
        UnsafeMutableRawPointer(base + offset).storeBytes(of: value.littleEndian, as: UInt32.self)
    }

    /// The byte at `offset`.
    @inline(__always)
    subscript(offset: Int) -> UInt8 {
        get { storage[offset] }
        set { storage[offset] = newValue }
    }

    /// Appends a copy of the `length` bytes at `start` (which are in the buffer).
    @inline(__always)
    mutating func appendCopy(from start: Int, count length: Int) {
        precondition(start >= 0 && start + length <= count, "copying from outside the scratch buffer")
        let destination = storage.appendUninitialized(count: length)
        destination.update(from: base + start, count: length)
    }

    /// Moves the bytes from `start` to the end down to `destination` and drops
    /// what was beyond them.
    mutating func moveTail(from start: Int, to destination: Int) {
        precondition(destination <= start && start <= count, "moving outside the scratch buffer")
        let length = count - start
        UnsafeMutableRawPointer(base + destination).copyMemory(from: base + start, byteCount: length)
        storage.truncate(to: destination + length)
    }

    /// Drops everything from `newCount` on.
    @inline(__always)
    mutating func truncate(to newCount: Int) {
        storage.truncate(to: newCount)
    }

    /// The bytes from `start` to the end; valid until the next mutation.
    @inline(__always)
    func bytes(from start: Int = 0) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + start, count: count - start)
    }

    /// XXH3-128 of the bytes from `start` to the end.
    @inline(__always)
    func hash128(from start: Int) -> ContentHash {
        StableHash.hash128(base + start, count: count - start)
    }

    /// A copy of the bytes from `start` to the end.
    func array(from start: Int = 0) -> [UInt8] {
        Array(UnsafeBufferPointer(start: base + start, count: count - start))
    }
}
