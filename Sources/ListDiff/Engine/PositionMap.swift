/// The positions of one list's elements in another list (-1: none), stored only for a window of
/// them: the positions before the window map to themselves, those after it are moved by a fixed
/// shift (the other list's length minus this one's).
///
/// ``IdentifierMatching`` pairs the elements that keep their place at both ends of two lists
/// without storing them: a one-element change in a list of a million then costs the matching
/// arrays of the elements between the ends, not two arrays of a million positions.
@usableFromInline
struct PositionMap {
    /// The first position stored; the positions before it map to themselves.
    @usableFromInline
    let start: Int

    /// The positions of `start..<(start + stored.count)`.
    @usableFromInline
    var stored: [Int]

    /// What the positions after the window (up to ``count``) are moved by.
    @usableFromInline
    let shift: Int

    /// How many positions the list has.
    @usableFromInline
    let count: Int

    /// A map of `count` positions, all stored, each -1.
    @inlinable
    init(unmatched count: Int) {
        self.init(start: 0, stored: Array(repeating: -1, count: count), shift: 0, count: count)
    }

    /// A map of `count` positions that stores `start..<(start + stored.count)`; the others map
    /// to themselves (before) or are moved by `shift` (after).
    @inlinable
    init(start: Int, stored: [Int], shift: Int, count: Int) {
        precondition(start >= 0 && start + stored.count <= count, "PositionMap: the window is outside the list")
        self.start = start
        self.stored = stored
        self.shift = shift
        self.count = count
    }

    /// The stored positions.
    @inlinable
    var window: Range<Int> { start..<(start &+ stored.count) }

    /// The position that `position` maps to. Only stored positions can be set.
    @inlinable
    subscript(position: Int) -> Int {
        get {
            let local = position &- start
            if local >= 0 && local < stored.count { return stored[local] }
            return position < start ? position : position &+ shift
        }
        set {
            precondition(window.contains(position), "PositionMap: position \(position) is not stored")
            stored[position &- start] = newValue
        }
    }
}
