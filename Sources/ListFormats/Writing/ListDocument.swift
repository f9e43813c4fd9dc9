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

    /// The member whose value names the section of every record — the field a list was
    /// sectioned by — or `nil` when there is none: a linear document, or sections that are not
    /// a field of their records (a JSON object of arrays, whose members name the sections). The
    /// first such member in ``memberNames`` order. O(records × members) at worst; a member that
    /// is not the section field usually fails at the first record.
    public var sectionField: String? {
        guard case .sections(let sections) = self else { return nil }
        return self.memberNames.first { name in
            sections.allSatisfy { section in
                section.records.allSatisfy { record in record[member: name].map { $0 == section.value || $0.text == section.value.text } ?? false }
            }
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
