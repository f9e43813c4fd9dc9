import ListDiff
import ListFormats

/// Reads the JSON encoding of a staged changeset (*Changeset encoding* in
/// docs/PROTOCOL.md) back into ``ChangesetStage``s. Members it does not know
/// are ignored, so that the encoding can grow.
public enum ChangesetDecoder {
    /// Decodes the encoding's bytes (a JSON array of stages), nested at most as deep as a
    /// message may be (``MessageParser/maxNestingDepth``), so that every changeset a client
    /// takes in a message it also takes as bytes.
    public static func decode(_ bytes: [UInt8]) throws(ChangesetDecodingError) -> [ChangesetStage] {
        let list: ParsedList
        do {
            list = try ListReader(options: ReadOptions(format: .json, maxNestingDepth: MessageParser.maxNestingDepth)).read(bytes: bytes)
        } catch {
            throw .invalidJSON(error)
        }
        guard !list.isSectioned else { throw .unexpected(at: "stages", expected: "an array of stages") }
        return try stages(list.records.map(list.value(of:)))
    }

    /// Decodes the encoding as a value (a JSON array of stages).
    public static func decode(_ value: ListValue) throws(ChangesetDecodingError) -> [ChangesetStage] {
        guard case .array(let stages) = value else { throw .unexpected(at: "stages", expected: "an array of stages") }
        return try self.stages(stages)
    }

    private static func stages(_ values: [ListValue]) throws(ChangesetDecodingError) -> [ChangesetStage] {
        var stages: [ChangesetStage] = []
        for (number, value) in values.enumerated() {
            stages.append(try stage(Reader(value: value, path: "stages[\(number)]")))
        }
        return stages
    }

    private static func stage(_ stage: Reader) throws(ChangesetDecodingError) -> ChangesetStage {
        guard case .object = stage.value else { throw .unexpected(at: stage.path, expected: "an object") }
        return ChangesetStage(
            sectionDeleted: try stage.list(ChangesetField.sectionDeleted) { item throws(ChangesetDecodingError) in try item.index() },
            sectionInserted: try stage.list(ChangesetField.sectionInserted) { item throws(ChangesetDecodingError) in
                ChangesetStage.InsertedSection(
                    index: try item.member(ChangesetField.index).index(), section: try item.section(),
                    records: try item.list(ChangesetField.records, required: true) { record throws(ChangesetDecodingError) in
                        try record.record()
                    })
            },
            sectionMoved: try stage.list(ChangesetField.sectionMoved) { item throws(ChangesetDecodingError) in
                let pair = try item.pair()
                return ChangesetStage.Move(source: try pair.0.index(), target: try pair.1.index())
            },
            sectionUpdated: try stage.list(ChangesetField.sectionUpdated) { item throws(ChangesetDecodingError) in
                ChangesetStage.UpdatedSection(index: try item.member(ChangesetField.index).index(), section: try item.section())
            },
            elementDeleted: try stage.list(ChangesetField.elementDeleted) { item throws(ChangesetDecodingError) in try item.elementPath() },
            elementInserted: try stage.list(ChangesetField.elementInserted) { item throws(ChangesetDecodingError) in try item.placedRecord() },
            elementUpdated: try stage.list(ChangesetField.elementUpdated) { item throws(ChangesetDecodingError) in try item.placedRecord() },
            elementMoved: try stage.list(ChangesetField.elementMoved) { item throws(ChangesetDecodingError) in
                let pair = try item.pair()
                return ChangesetStage.Move(source: try pair.0.elementPath(), target: try pair.1.elementPath())
            },
            elementDeletedKeys: try stage.list(ChangesetField.elementDeletedKeys) { item throws(ChangesetDecodingError) in try item.key() },
            elementMovedKeys: try stage.list(ChangesetField.elementMovedKeys) { item throws(ChangesetDecodingError) in try item.key() })
    }

    /// A value of the encoding with its path, for messages
    /// (`stages[1].element_inserted[0].at`).
    private struct Reader {
        var value: ListValue
        var path: String

        func member(_ name: String) throws(ChangesetDecodingError) -> Reader {
            guard let member = value[member: name] else { throw .unexpected(at: "\(path).\(name)", expected: "a value") }
            return Reader(value: member, path: "\(path).\(name)")
        }

        /// The array member `name` mapped by `transform`; empty when absent
        /// (unless `required`).
        func list<T>(
            _ name: String, required: Bool = false, _ transform: (Reader) throws(ChangesetDecodingError) -> T
        ) throws(ChangesetDecodingError) -> [T] {
            guard let member = value[member: name] else {
                if required { throw .unexpected(at: "\(path).\(name)", expected: "an array") }
                return []
            }
            guard case .array(let elements) = member else { throw .unexpected(at: "\(path).\(name)", expected: "an array") }
            var result: [T] = []
            result.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                result.append(try transform(Reader(value: element, path: "\(path).\(name)[\(index)]")))
            }
            return result
        }

        func index() throws(ChangesetDecodingError) -> Int {
            guard case .number(let literal) = value, let index = Int(literal), index >= 0 else {
                throw .unexpected(at: path, expected: "a non-negative integer")
            }
            return index
        }

        func pair() throws(ChangesetDecodingError) -> (Reader, Reader) {
            guard case .array(let elements) = value, elements.count == 2 else {
                throw .unexpected(at: path, expected: "an array of two")
            }
            return (Reader(value: elements[0], path: "\(path)[0]"), Reader(value: elements[1], path: "\(path)[1]"))
        }

        /// `[section, element]`.
        func elementPath() throws(ChangesetDecodingError) -> ElementPath {
            let pair = try pair()
            return ElementPath(element: try pair.1.index(), section: try pair.0.index())
        }

        func hash() throws(ChangesetDecodingError) -> ContentHash {
            let member = try member(ChangesetField.hash)
            guard case .string(let text) = member.value, let hash = ContentHash(text) else {
                throw .unexpected(at: member.path, expected: "32 hex digits")
            }
            return hash
        }

        func record() throws(ChangesetDecodingError) -> ChangesetStage.Record {
            ChangesetStage.Record(value: try member(ChangesetField.value).value, hash: try hash())
        }

        func section() throws(ChangesetDecodingError) -> ChangesetStage.Section {
            ChangesetStage.Section(model: try member(ChangesetField.model).value, hash: try hash())
        }

        func placedRecord() throws(ChangesetDecodingError) -> ChangesetStage.PlacedRecord {
            ChangesetStage.PlacedRecord(
                path: try member(ChangesetField.at).elementPath(), record: try record(),
                key: try value[member: ChangesetField.key].map { _ throws(ChangesetDecodingError) in try member(ChangesetField.key).key() })
        }

        /// A record's key: an array of the key fields' values.
        func key() throws(ChangesetDecodingError) -> ChangesetStage.RecordKey {
            guard case .array(let values) = value else { throw .unexpected(at: path, expected: "an array of key values") }
            return values
        }
    }
}
