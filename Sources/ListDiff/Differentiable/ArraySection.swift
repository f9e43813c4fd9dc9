/// A section made of a model, which gives the section its identity and content,
/// and an array of elements.
///
/// Two sections are the same section when their models have the same
/// `differenceIdentifier`; the section is updated when the models' content
/// differs. Changes to the elements never count as a section update.
public struct ArraySection<Model: Differentiable, Element: Differentiable>: DifferentiableSection {
    /// The section's model: its identity and content.
    public var model: Model

    /// The section's elements, in order.
    public var elements: [Element]

    /// The model's identifier.
    @inlinable
    public var differenceIdentifier: Model.DifferenceIdentifier {
        model.differenceIdentifier
    }

    /// Creates a section from a model and its elements.
    @inlinable
    public init<C: Swift.Collection>(model: Model, elements: C) where C.Element == Element {
        self.model = model
        self.elements = Array(elements)
    }

    /// Creates a section with the model of `source` and the given elements.
    @inlinable
    public init<C: Swift.Collection>(source: ArraySection, elements: C) where C.Element == Element {
        self.init(model: source.model, elements: elements)
    }

    /// Whether the models have the same content; the elements are not compared.
    @inlinable
    public func isContentEqual(to source: ArraySection) -> Bool {
        model.isContentEqual(to: source.model)
    }
}

extension ArraySection: Equatable where Model: Equatable, Element: Equatable {}
extension ArraySection: Hashable where Model: Hashable, Element: Hashable {}
extension ArraySection: Sendable where Model: Sendable, Element: Sendable {}

extension ArraySection: CustomDebugStringConvertible {
    public var debugDescription: String {
        "ArraySection(model: \(String(reflecting: model)), elements: \(String(reflecting: elements)))"
    }
}
