/// A section of a sectioned list: itself ``Differentiable`` (its identity and
/// content are the section's), and holding the elements that are diffed inside it.
///
/// Most code uses ``ArraySection``; conform your own type when sections carry
/// more than a model and an array.
public protocol DifferentiableSection: Differentiable {
    /// The collection of the section's elements.
    associatedtype Collection: Swift.Collection where Collection.Element: Differentiable

    /// The elements of the section, in order.
    var elements: Collection { get }

    /// Creates a section with the identity and content of `source` and the
    /// given elements; the engine uses it to build the intermediate states of
    /// a staged changeset.
    init<C: Swift.Collection>(source: Self, elements: C) where C.Element == Collection.Element
}
