import ListFormats

/// What changed between two values of a record, in a few words for people:
/// for objects the members that differ — `name: "Bob" → "Robert"`,
/// `+note: "new"`, `−city` — and otherwise the whole values, `old → new`.
enum ValueChange {
    /// The change from `old` to `new`, members in the new value's order, then
    /// the removed ones. O(members) expected.
    static func summary(from old: ListValue, to new: ListValue) -> String {
        guard case .object(let oldMembers) = old, case .object(let newMembers) = new else {
            return "\(old.jsonText) → \(new.jsonText)"
        }
        let oldValues = Dictionary(oldMembers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let newNames = Set(newMembers.map(\.name))
        var parts: [String] = []
        for member in newMembers {
            switch oldValues[member.name] {
            case nil: parts.append("+\(member.name): \(member.value.jsonText)")
            case let value? where value != member.value:
                parts.append("\(member.name): \(value.jsonText) → \(member.value.jsonText)")
            default: break
            }
        }
        for member in oldMembers where !newNames.contains(member.name) {
            parts.append("−\(member.name)")
        }
        // Equal members in another order (content equality ignores order).
        return parts.isEmpty ? "\(old.jsonText) → \(new.jsonText)" : parts.joined(separator: "; ")
    }
}
