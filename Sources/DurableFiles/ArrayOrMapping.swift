/// What a piece of a value held in pieces is a range of: an array in memory, or a read-only
/// mapping of a file that holds the same elements laid out as in memory — issue 19: a saved
/// version's bytes (``FileBytes``) and records (`ListRecords`) served from files the daemon
/// wrote, resident only while read. Either is shared by every piece cut from it and never written
/// while held. One piece of code for both: the bytes' ``FileBytes/Storage`` is this over `UInt8`.
public enum ArrayOrMapping<Element: BitwiseCopyable> {
    /// Elements in memory (`Array`'s copy on write keeps them as they are while held).
    case array([Element])
    /// A stretch of a file, mapped, whose bytes are the elements one after the other (see
    /// ``MappedFileRegion`` for what must not happen to the file meanwhile). Its first byte is
    /// aligned for `Element` and it holds a whole number of them (``init(mapping:)`` checks).
    case mapped(MappedFileRegion)

    /// `region`'s bytes as elements: `nil` when they are not a whole number of elements, or not
    /// aligned for them.
    public init?(mapping region: MappedFileRegion) {
        let stride = MemoryLayout<Element>.stride
        guard region.count % stride == 0, UInt(bitPattern: region.buffer.baseAddress) % UInt(MemoryLayout<Element>.alignment) == 0 else {
            return nil
        }
        self = .mapped(region)
    }

    /// How many elements it holds.
    public var count: Int {
        switch self {
        case .array(let array): array.count
        case .mapped(let region): region.count / MemoryLayout<Element>.stride
        }
    }

    /// What holding it keeps alive, in elements: the array's capacity, or the mapped stretch's.
    public var capacity: Int {
        switch self {
        case .array(let array): array.capacity
        case .mapped: count
        }
    }

    /// The array, when it is one.
    public var array: [Element]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// The mapping, when it is one.
    public var mappedRegion: MappedFileRegion? {
        if case .mapped(let region) = self { return region }
        return nil
    }

    /// All its elements, in place.
    @inline(__always)
    public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<Element>) throws(E) -> R) throws(E) -> R {
        switch self {
        case .array(let array): return try array.withUnsafeBufferPointer { buffer throws(E) in try body(buffer) }
        case .mapped(let region): return try body(Self.elements(of: region))
        }
    }

    /// The element at `index`.
    @inline(__always)
    public subscript(index: Int) -> Element {
        switch self {
        case .array(let array): array[index]
        case .mapped(let region): Self.elements(of: region)[index]
        }
    }

    /// Where its elements start in memory: the same for every piece of one storage, so it says
    /// which pieces share it (`nil` for an empty array).
    public var address: UInt {
        withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    /// Lets the pages that hold elements `range` go from the resident set when they are mapped
    /// (``MappedFileRegion/releasePages(in:)``); an array is left as it is. For a reader that goes
    /// once through a large stretch of a mapped storage, a part at a time.
    public func releasePages(in range: Range<Int>) {
        guard case .mapped(let region) = self else { return }
        let stride = MemoryLayout<Element>.stride
        region.releasePages(in: (range.lowerBound * stride)..<(range.upperBound * stride))
    }

    @inline(__always)
    private static func elements(of region: MappedFileRegion) -> UnsafeBufferPointer<Element> {
        UnsafeBufferPointer(
            start: UnsafeRawPointer(region.buffer.baseAddress)?.assumingMemoryBound(to: Element.self),
            count: region.count / MemoryLayout<Element>.stride)
    }
}

extension ArrayOrMapping: Sendable where Element: Sendable {}
