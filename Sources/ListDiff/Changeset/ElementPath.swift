/// The position of an element in a sectioned list: the element's offset inside
/// its section, and the section's offset in the list.
///
/// Linear lists use section 0.
public struct ElementPath: Hashable, Sendable {
    /// The element's offset inside its section.
    public var element: Int

    /// The section's offset in the list.
    public var section: Int

    /// Creates a path to the element at `element` in section `section`.
    @inlinable
    public init(element: Int, section: Int) {
        self.element = element
        self.section = section
    }
}

extension ElementPath: Comparable {
    /// Paths order by section, then by element.
    @inlinable
    public static func < (lhs: ElementPath, rhs: ElementPath) -> Bool {
        (lhs.section, lhs.element) < (rhs.section, rhs.element)
    }
}

extension ElementPath: CustomDebugStringConvertible {
    public var debugDescription: String {
        "[element: \(element), section: \(section)]"
    }
}
