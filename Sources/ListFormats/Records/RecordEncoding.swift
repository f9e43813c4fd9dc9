/// The record format of a list, with what decoding a record needs.
enum RecordEncoding: Sendable {
    /// CSV rows; values are objects of strings in header order.
    case csv(CSVLayout)
    /// JSON values, keyed by the values at `key` (empty: no key), published without the fields
    /// at `ignore`.
    case json(key: [FieldPath], ignore: [FieldPath])

    /// Whether records have a key.
    var isKeyed: Bool {
        switch self {
        case .csv(let layout): !layout.key.isEmpty
        case .json(let key, _): !key.isEmpty
        }
    }
}
