import ListFormats

/// What changed between two values of a record, in a few words for people: for objects the
/// members that differ — `name: "Bob" → "Robert"`, `+note: "new"`, `−city` — and inside nested
/// objects the JSON Pointer of each changed member, `/address/city: "Oslo" → "Bergen"`, so a
/// large record shows only what changed; otherwise the whole values, `old → new`.
enum ValueChange {
    /// The change from `old` to `new`, members in the new value's order, then the removed ones;
    /// `nil` when the values differ only by `renamed` members (old name → new name: a renamed CSV
    /// column, which the header line reports once for all records). O(size) expected.
    static func summary(from old: ListValue, to new: ListValue, renamed: [String: String] = [:]) -> String? {
        let old = renamed.isEmpty ? old : Self.renaming(old, renamed)
        var parts: [String] = []
        if case .object = old, case .object = new {
            self.collect(from: old, to: new, path: nil, into: &parts)
        } else if old != new {
            parts.append("\(old.jsonText) → \(new.jsonText)")
        }
        if parts.isEmpty {
            // Equal members in another order (content equality ignores order), or only renamed.
            return renamed.isEmpty ? "\(old.jsonText) → \(new.jsonText)" : nil
        }
        return parts.joined(separator: "; ")
    }

    /// The differences between two objects: top-level members by name, nested ones by pointer.
    private static func collect(from old: ListValue, to new: ListValue, path: String?, into parts: inout [String]) {
        guard case .object(let oldMembers) = old, case .object(let newMembers) = new else { return }
        func label(_ name: String) -> String {
            path.map { $0 + "/" + Self.escaped(name) } ?? name
        }
        let oldValues = Dictionary(oldMembers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let newNames = Set(newMembers.map(\.name))
        for member in newMembers {
            guard let value = oldValues[member.name] else {
                parts.append("+\(label(member.name)): \(member.value.jsonText)")
                continue
            }
            guard value != member.value else { continue }
            if case .object = value, case .object = member.value {
                self.collect(from: value, to: member.value, path: (path ?? "") + "/" + Self.escaped(member.name), into: &parts)
            } else {
                parts.append("\(label(member.name)): \(value.jsonText) → \(member.value.jsonText)")
            }
        }
        for member in oldMembers where !newNames.contains(member.name) {
            parts.append("−\(label(member.name))")
        }
    }

    /// `value` with its top-level members renamed.
    private static func renaming(_ value: ListValue, _ renamed: [String: String]) -> ListValue {
        guard case .object(let members) = value else { return value }
        return .object(members.map { ListValue.Member(name: renamed[$0.name] ?? $0.name, value: $0.value) })
    }

    /// A member name as a JSON Pointer token (RFC 6901: `~` → `~0`, `/` → `~1`).
    private static func escaped(_ name: String) -> String {
        name.replacing("~", with: "~0").replacing("/", with: "~1")
    }
}
