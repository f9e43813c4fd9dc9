/// A field named in the options, parsed: the member names (or array indices)
/// to follow from the record to the field.
public struct FieldPath: Hashable, Sendable {
    /// The name as the user wrote it, for messages.
    public let spelling: String

    /// The reference tokens, unescaped (`~1` → `/`, `~0` → `~`).
    let tokens: [[UInt8]]

    /// Parses a JSON Pointer (`/a/b`) or a plain top-level name (`a`).
    public init(parsing spelling: String) throws(ListFormatError) {
        self.spelling = spelling
        guard spelling.hasPrefix("/") else {
            tokens = [Array(spelling.utf8)]
            return
        }
        var tokens: [[UInt8]] = []
        for rawToken in spelling.utf8.dropFirst().split(separator: ASCII.slash, omittingEmptySubsequences: false) {
            var token: [UInt8] = []
            var iterator = rawToken.makeIterator()
            while let byte = iterator.next() {
                guard byte == ASCII.tilde else {
                    token.append(byte)
                    continue
                }
                switch iterator.next() {
                case UInt8(ascii: "0"): token.append(ASCII.tilde)
                case UInt8(ascii: "1"): token.append(ASCII.slash)
                default: throw .invalidFieldName(spelling)
                }
            }
            tokens.append(token)
        }
        self.tokens = tokens
    }

    /// The CSV column this path names: the spelling itself when a column has
    /// that name, else the single token of a one-token pointer.
    func column(in header: [String]) -> Int? {
        if let index = header.firstIndex(of: spelling) { return index }
        guard spelling.hasPrefix("/"), tokens.count == 1 else { return nil }
        let name = String(decoding: tokens[0], as: UTF8.self)
        return header.firstIndex(of: name)
    }
}

extension FieldPath {
    /// The value the path leads to in `value`: members by name, array
    /// elements by index; `nil` when there is none.
    public func value(in value: ListValue) -> ListValue? {
        var current = value
        for token in tokens {
            switch current {
            case .object(let members):
                guard let member = members.first(where: { $0.name.utf8.elementsEqual(token) }) else { return nil }
                current = member.value
            case .array(let elements):
                guard let index = Int(String(decoding: token, as: UTF8.self)), elements.indices.contains(index) else {
                    return nil
                }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }
}

extension FieldPath {
    /// The member name a one-token path names at the top of a record (`id` and `/id` both name
    /// `id`); `nil` for a deeper path. What a sink makes a column of.
    public var topLevelName: String? {
        tokens.count == 1 ? String(decoding: tokens[0], as: UTF8.self) : nil
    }
}

extension ListValue {
    /// The value without the fields at `paths` — members by name, array elements by index
    /// (`0`, `12`; indices in this value, before any removal), as the JSON scanner leaves them out
    /// of the content hash. Paths that lead nowhere change nothing. O(size × paths).
    func removing(_ paths: [FieldPath]) -> ListValue {
        removing(tokenPaths: paths.map { $0.tokens[...] })
    }

    private func removing(tokenPaths paths: [ArraySlice<[UInt8]>]) -> ListValue {
        guard !paths.isEmpty else { return self }
        /// What to do with a member or element named `token`: drop it, or keep it without the
        /// rest of the paths that go through it.
        func below(_ token: some Sequence<UInt8>) -> [ArraySlice<[UInt8]>]? {
            let through = paths.filter { $0.first.map { $0.elementsEqual(token) } ?? false }
            if through.contains(where: { $0.count == 1 }) { return nil }
            return through.map { $0.dropFirst() }
        }
        switch self {
        case .object(let members):
            return .object(
                members.compactMap { member in
                    below(member.name.utf8).map { ListValue.Member(name: member.name, value: member.value.removing(tokenPaths: $0)) }
                })
        case .array(let elements):
            return .array(
                elements.enumerated().compactMap { index, element in
                    below(String(index).utf8).map { element.removing(tokenPaths: $0) }
                })
        default:
            return self
        }
    }
}
