/// A list as values: what writers write, and what ``ParsedList/document``
/// decodes a parsed list into.
public enum ListDocument: Hashable, Sendable {
    /// One list of records.
    case records([ListValue])

    /// Records in sections, in order.
    case sections([Section])

    /// A section of a document: the value that names it and its records.
    public struct Section: Hashable, Sendable {
        /// The section's value (its name).
        public var value: ListValue
        /// The section's records.
        public var records: [ListValue]

        /// Creates a section.
        public init(value: ListValue, records: [ListValue]) {
            self.value = value
            self.records = records
        }
    }

    /// All records, sections one after the other.
    public var allRecords: [ListValue] {
        switch self {
        case .records(let records): records
        case .sections(let sections): sections.flatMap(\.records)
        }
    }

    /// The member names of the object records, in order of first appearance.
    /// O(total members).
    public var memberNames: [String] {
        var names: [String] = []
        var known: Set<String> = []
        for case .object(let members) in allRecords {
            for member in members where known.insert(member.name).inserted {
                names.append(member.name)
            }
        }
        return names
    }
}

extension ParsedList {
    /// The list's values: every record decoded (O(file size)), sections kept.
    public var document: ListDocument {
        switch layout {
        case .linear(let records):
            .records(records.map(value(of:)))
        case .sectioned(let sections):
            .sections(sections.map { ListDocument.Section(value: $0.model.value, records: $0.elements.map(value(of:))) })
        }
    }
}
