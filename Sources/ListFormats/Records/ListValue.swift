/// A value read from a list file, in JSON's data model.
///
/// Numbers keep their literal text, so integers beyond 2^53 and long decimals
/// survive unchanged. Objects keep their members in file order. CSV records
/// are objects of strings in header order.
public enum ListValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its literal text (`"12.50"`, `"1e400"`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([ListValue])
    /// An object; members in file order.
    case object([Member])

    /// A member of an object.
    public struct Member: Hashable, Sendable {
        /// The member's name.
        public var name: String
        /// The member's value.
        public var value: ListValue

        /// Creates a member.
        public init(name: String, value: ListValue) {
            self.name = name
            self.value = value
        }
    }

    /// The value of the member named `name`, for objects; `nil` otherwise.
    /// O(members).
    public subscript(member name: String) -> ListValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }

    /// The value as one piece of text: a string as it is, a number as written,
    /// `true`/`false`, an empty string for `null`, and arrays and objects as
    /// compact JSON. This is what a CSV field holds.
    public var text: String {
        switch self {
        case .null: ""
        case .bool(let value): value ? "true" : "false"
        case .number(let literal): literal
        case .string(let string): string
        case .array, .object: jsonText
        }
    }

    /// The stable 128-bit hash of the value's canonical JSON text (members
    /// sorted by name, no whitespace): the content hash a JSON record with
    /// this value has when no field is ignored. O(size).
    public var contentHash: ContentHash {
        var output = ByteScratch()
        JSONValueEncoder.append(self, sortsMembers: true, to: &output)
        return output.hash128(from: 0)
    }

    /// The value as compact JSON text.
    public var jsonText: String {
        var output = ByteScratch()
        JSONValueEncoder.append(self, to: &output)
        return String(decoding: output.bytes(), as: UTF8.self)
    }
}
