import ListFormats

/// Why an encoded changeset could not be decoded.
public enum ChangesetDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not a JSON array (with the reader's positioned error).
    case invalidJSON(ListFormatError)

    /// The value at `at` (a path such as `stages[0].element_inserted[2].at`)
    /// is not what the encoding has there.
    case unexpected(at: String, expected: String)

    /// What is wrong, and where.
    public var description: String {
        switch self {
        case .invalidJSON(let error): "invalid changeset JSON: \(error)"
        case .unexpected(let at, let expected): "\(at): expected \(expected)"
        }
    }
}
