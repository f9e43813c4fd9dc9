/// An array whose storage a later version may be written into, once nothing else holds it.
///
/// A daemon that reads a 44 MB file and builds an array of a million records per version
/// otherwise maps fresh memory for both each time, which the kernel zeroes page by page (a third
/// of its time on a one-row edit, issue 19). Writing the next version into the storage of one
/// that was retired avoids that — but only when no one still reads it: a version held by a
/// snapshot in progress, a subscriber or a tracker must never change. ``isUniquelyReferenced(_:)``
/// says whether that is so, without touching the storage; writers then go through `Array`'s
/// mutating methods, so even a wrong answer would copy the storage rather than overwrite it.
public enum RecycledArray {
    /// Whether nothing but `array` holds its storage (and it has any): writing into it in place
    /// changes no other array. O(1).
    ///
    /// An array is one reference to its storage object, a native Swift object, on platforms
    /// without Objective-C bridging (the standard library's frozen layout); the check is that
    /// reference's `isKnownUniquelyReferenced`, read as a reference to a native class (Swift 6
    /// answers `false` for any `AnyObject`). Where the layout is not that one (checked once, on
    /// arrays whose answer is known) the answer is always `false`: nothing is recycled.
    public static func isUniquelyReferenced<Element>(_ array: inout [Element]) -> Bool {
        guard layoutIsOneReference, array.capacity > 0 else { return false }
        return storageIsUnique(&array)
    }

    private static func storageIsUnique<Element>(_ array: inout [Element]) -> Bool {
        #if _runtime(_ObjC)
        return false
        #else
        guard MemoryLayout<[Element]>.size == MemoryLayout<NativeObject>.size else { return false }
        return withUnsafeMutablePointer(to: &array) { array in
            array.withMemoryRebound(to: NativeObject.self, capacity: 1) { storage in isKnownUniquelyReferenced(&storage.pointee) }
        }
        #endif
    }

    /// Any native Swift class: what an array's storage reference is read as, for its reference count only.
    private final class NativeObject {}

    /// Whether the check answers right on two arrays whose answer is known: one alone, one shared.
    private static let layoutIsOneReference: Bool = {
        var alone = [UInt8](repeating: 1, count: 1)
        guard storageIsUnique(&alone) else { return false }
        let shared = alone
        defer { withExtendedLifetime(shared) {} }
        return !storageIsUnique(&alone)
    }()

    /// The capacity to give a new array of `count` elements that later versions will be written
    /// into: a little more (1/32, at least 4,096 elements) so that a list that grows by appends
    /// fits in it for a while. The room is not advised into huge pages: pages never touched
    /// cost no memory, and a huge page across the end would make 2 MiB resident for a few bytes.
    public static func recyclableCapacity(for count: Int) -> Int {
        count + max(count / 32, 4_096)
    }
}
