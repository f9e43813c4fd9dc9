/// Record slots in chunks of a fixed size: what the second half of a split
/// read (``SplitRead``) collects, until they become records of the list.
///
/// Chunks rather than one array so that turning them into records frees
/// them as it goes: the slots and the records they become are never all in
/// memory at once.
struct RecordSlotChunks: ~Copyable {
    private static let chunkSize = 1 << 15
    private var chunks: [UnsafeMutablePointer<RecordSlot>] = []
    /// The number of slots.
    private(set) var count = 0

    init() {}

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }

    /// Adds a slot. O(1).
    @inline(__always)
    mutating func append(_ slot: RecordSlot) {
        let offset = count & (Self.chunkSize - 1)
        if offset == 0 { chunks.append(.allocate(capacity: Self.chunkSize)) }
        (chunks[chunks.count - 1] + offset).initialize(to: slot)
        count += 1
    }

    /// Calls `body` with every slot, in order, freeing each chunk when its
    /// slots are done.
    consuming func drain(_ body: (RecordSlot) -> Void) {
        for (number, chunk) in chunks.enumerated() {
            let size = min(Self.chunkSize, count - number * Self.chunkSize)
            for offset in 0..<size { body(chunk[offset]) }
            chunk.deallocate()
        }
        chunks = []
    }
}
