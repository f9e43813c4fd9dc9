import ListDiff

extension IncrementalListReader {
    /// The numbers of sections by the canonical bytes of their values: those of the previous
    /// version, then the new ones in the order they are met. Built on first use (a list without
    /// sections never asks).
    struct SectionNumbers {
        private var numbers: [[UInt8]: Int32]?
        private let previous: [[UInt8]]

        init(_ previous: [[UInt8]]) {
            self.previous = previous
        }

        /// The number of the section whose value has the canonical bytes `canonical`; a new one,
        /// appended to `values`, the first time.
        mutating func number(of canonical: [UInt8], in values: inout [[UInt8]]) -> Int32 {
            var numbers = self.numbers ?? Dictionary(uniqueKeysWithValues: previous.enumerated().map { ($1, Int32($0)) })
            defer { self.numbers = numbers }
            if let number = numbers[canonical] { return number }
            let number = Int32(values.count)
            values.append(canonical)
            numbers[canonical] = number
            return number
        }
    }

    /// The records of a sectioned list, in file order, in their sections — as ``ListReader``
    /// groups them: with `section_by` (``Grouping/byValue``), in order of first appearance, each
    /// named by the model its first record gives it; in a JSON object of arrays
    /// (``Grouping/byMember``), each member's run of records, in file order. The sections are
    /// numbered again in that order (in `chunks`, `sectionOfRecord` and `values`, the canonical
    /// bytes of each section's value by number), so that the numbers stay as many as the sections.
    ///
    /// Throws when two members have one name, or, when `namesMustDiffer` (JSON), two `section_by`
    /// values give their sections one name: errors that the caller leaves to ``ListReader`` to
    /// find and place (the error thrown here is not placed).
    static func sections(
        of records: [ListRecord], grouping: Grouping, chunks: inout [Chunk], sectionOfRecord: inout [Int32],
        sectionValues values: inout [[UInt8]], namesMustDiffer: Bool
    ) throws(ListFormatError) -> [ArraySection<SectionModel, ListRecord>] {
        let nowhere = SourcePosition(line: 0, column: 0, byteOffset: 0)
        var renumbered = [Int32](repeating: -1, count: values.count)
        var models: [SectionModel] = []
        var newValues: [[UInt8]] = []
        var firstRecords: [Int] = []
        for chunk in chunks.indices {
            for index in chunks[chunk].sections.indices {
                let section = chunks[chunk].sections[index]
                let old = Int(section.number)
                if renumbered[old] >= 0 {
                    guard grouping == .byValue else { throw .duplicateMemberName(section.model.name, at: nowhere, first: nowhere) }
                } else {
                    renumbered[old] = Int32(models.count)
                    models.append(section.model)
                    newValues.append(values[old])
                    firstRecords.append(section.firstRecord)
                }
                chunks[chunk].sections[index].number = renumbered[old]
            }
        }
        values = newValues

        switch grouping {
        case .none:
            return [ArraySection(model: SectionModel(value: .null), elements: records)]
        case .byMember:
            return models.indices.map { number in
                let end = number + 1 < firstRecords.count ? firstRecords[number + 1] : records.count
                return ArraySection(model: models[number], elements: Array(records[firstRecords[number]..<end]))
            }
        case .byValue:
            if namesMustDiffer {
                var names: Set<String> = []
                for model in models where !names.insert(model.name).inserted {
                    throw .sectionNameCollision(model.name, at: nowhere, first: nowhere)
                }
            }
            var counts = [Int](repeating: 0, count: models.count)
            for index in sectionOfRecord.indices {
                let number = renumbered[Int(sectionOfRecord[index])]
                sectionOfRecord[index] = number
                counts[Int(number)] += 1
            }
            var grouped = counts.map { count in
                var records: [ListRecord] = []
                records.reserveCapacity(count)
                return records
            }
            for (record, number) in zip(records, sectionOfRecord) { grouped[Int(number)].append(record) }
            return zip(models, grouped).map { ArraySection(model: $0, elements: $1) }
        }
    }
}
