/// What a caller already knows of two lists it diffs, which spares the engine finding it again:
/// how many elements at the start and at the end of both are the same element with the same
/// content, and whether each list's identifiers are all distinct.
///
/// A program that reads versions of a file in chunks knows that the records of the chunks it
/// kept at both ends are byte for byte the last version's: with this, a one-element change in a
/// list of a million costs the engine no comparison and no hashing of the elements at the ends
/// (``StagedChangeset/init(source:target:knownEqualEnds:)``). The changeset is exactly the one
/// computed without it, provided what it says is true; debug builds check that it is
/// (identifiers' uniqueness in lists of up to 200,000).
public struct KnownEqualEnds: Hashable, Sendable {
    /// The first `prefix` elements of the source and of the target (all sections in order) are
    /// pairwise the same element (equal identifiers) with equal content.
    public var prefix: Int
    /// So are the last `suffix` elements of both.
    public var suffix: Int
    /// No identifier occurs twice in the source, nor twice in the target.
    public var identifiersAreUnique: Bool

    /// Says nothing: the engine finds everything itself.
    public static let nothing = KnownEqualEnds(prefix: 0, suffix: 0, identifiersAreUnique: false)

    /// Ends known equal; `identifiersAreUnique` as the lists' own duplicate counts say.
    @inlinable
    public init(prefix: Int, suffix: Int, identifiersAreUnique: Bool) {
        self.prefix = max(prefix, 0)
        self.suffix = max(suffix, 0)
        self.identifiersAreUnique = identifiersAreUnique
    }

    /// Checks, in debug builds, that what it says of `source` and `target` is true (O(*n*)).
    @inlinable
    func _check<Element: Differentiable>(source: ContiguousArray<Element>, target: ContiguousArray<Element>) {
        #if DEBUG
        guard self != .nothing else { return }
        precondition(prefix + suffix <= min(source.count, target.count), "KnownEqualEnds: the ends overlap")
        for index in 0..<prefix {
            precondition(
                source[index].differenceIdentifier == target[index].differenceIdentifier && source[index].isContentEqual(to: target[index]),
                "KnownEqualEnds: element \(index) differs")
        }
        for offset in 0..<suffix {
            let s = source[source.count - 1 - offset]
            let t = target[target.count - 1 - offset]
            precondition(
                s.differenceIdentifier == t.differenceIdentifier && s.isContentEqual(to: t),
                "KnownEqualEnds: element \(offset) from the end differs")
        }
        // (Uniqueness is checked up to 200,000 elements, which a debug build hashes in a blink.)
        if identifiersAreUnique && max(source.count, target.count) <= 200_000 {
            precondition(Set(source.lazy.map(\.differenceIdentifier)).count == source.count, "KnownEqualEnds: the source repeats an identifier")
            precondition(Set(target.lazy.map(\.differenceIdentifier)).count == target.count, "KnownEqualEnds: the target repeats an identifier")
        }
        #endif
    }
}
