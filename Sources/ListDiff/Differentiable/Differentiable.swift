/// A value that can be followed from one version of a list to the next.
///
/// Two questions decide every change the engine reports:
/// - *Which* element is this? Elements of the source and the target with the
///   same ``differenceIdentifier`` are the same element (first come, first
///   served when an identifier occurs more than once).
/// - *Did it change?* ``isContentEqual(to:)`` compares an element of the target
///   with its counterpart in the source; `false` makes it an update.
///
/// The protocol matches DifferenceKit's, so `import ListDiff` can replace
/// `import DifferenceKit`. `Hashable` types get `differenceIdentifier == self`
/// and `Equatable` types get `isContentEqual == (==)` for free:
///
///     extension String: Differentiable {}
public protocol Differentiable {
    /// The type of the identity that links an element across two versions.
    associatedtype DifferenceIdentifier: Hashable

    /// The identity of this element: equal identifiers mean the same element.
    var differenceIdentifier: DifferenceIdentifier { get }

    /// Whether this element (from the target) has the same content as `source`,
    /// its counterpart in the source. Only called for elements with equal
    /// identifiers; `false` reports an update.
    func isContentEqual(to source: Self) -> Bool
}

extension Differentiable where Self: Equatable {
    /// Content equality is value equality.
    @inlinable
    public func isContentEqual(to source: Self) -> Bool {
        self == source
    }
}

extension Differentiable where Self: Hashable {
    /// A hashable value is its own identity.
    @inlinable
    public var differenceIdentifier: Self {
        self
    }
}
