/// A growable array of plain values that readers reuse: the fields of the
/// current CSV row, the member names of the JSON objects being scanned, the
/// captured key fields of the current record.
///
/// Noncopyable and pointer-based, so appending and reading in a hot loop cost
/// no reference counting and no uniqueness checks.
struct ScratchArray<Element: BitwiseCopyable>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    /// The number of elements.
    private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = max(capacity, 1)
        self.base = .allocate(capacity: self.capacity)
    }

    /// An array of `count` copies of `element`.
    init(repeating element: Element, count: Int) {
        self.init(capacity: count)
        for _ in 0..<count { append(element) }
    }

    deinit {
        base.deallocate()
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow(to: count + 1) }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Adds `newCount` elements for the caller to write and returns where
    /// they are; valid until the next mutation.
    @inline(__always)
    mutating func appendUninitialized(count newCount: Int) -> UnsafeMutablePointer<Element> {
        if count + newCount > capacity { grow(to: count + newCount) }
        let start = base + count
        count += newCount
        return start
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// The first element; valid until the next mutation.
    @inline(__always)
    var baseAddress: UnsafeMutablePointer<Element> {
        base
    }

    /// Drops the elements from `newCount` on.
    @inline(__always)
    mutating func truncate(to newCount: Int) {
        precondition(newCount <= count, "truncating a scratch array past its end")
        count = newCount
    }

    @inline(__always)
    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "scratch array index out of range")
            return base[index]
        }
        set {
            precondition(index >= 0 && index < count, "scratch array index out of range")
            base[index] = newValue
        }
    }

    /// The elements from `start` on; valid until the next mutation.
    func elements(from start: Int) -> UnsafeBufferPointer<Element> {
        UnsafeBufferPointer(start: base + start, count: count - start)
    }
}
