import ListDiff

/// The model of a section: the value that names it.
///
/// With `section_by` it is the field's value; for a JSON object of arrays it
/// is the member name (a string); the single section of a linear list has
/// ``ListValue/null``. Sections with equal values are the same section, and a
/// section has no content beyond its name, so it is never "updated".
public struct SectionModel: Hashable, Sendable, Differentiable {
    /// The section's value.
    public var value: ListValue

    /// Creates a section model.
    public init(value: ListValue) {
        self.value = value
    }

    /// The value as text (strings as they are, anything else as JSON).
    public var name: String {
        value.text
    }

    /// The stable hash of the model's value (``ListValue/contentHash``).
    public var contentHash: ContentHash {
        value.contentHash
    }
}
