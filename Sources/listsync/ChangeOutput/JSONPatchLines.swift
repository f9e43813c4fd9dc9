import ListFormats
import ListSyncClient

/// `--format json-patch`: each snapshot and changeset as one RFC 6902 JSON Patch document, on
/// one line, that turns the previous JSON rendering of the list (`listsync snapshot
/// --output-format json`) into the next. A snapshot replaces the whole document (path `""`), so
/// a stream read from its start builds the list from nothing.
enum JSONPatchLines {
    /// The patch for a snapshot: replace the whole document with `sections`' rendering.
    static func snapshot(_ sections: [MirroredSection], sectioned: Bool) -> [UInt8] {
        self.line([self.operation("replace", path: "", value: self.rendering(of: sections, sectioned: sectioned))])
    }

    /// The patch made of `edits`.
    static func changeset(_ edits: [ListEdit]) -> [UInt8] {
        self.line(edits.map { edit in
            switch edit {
            case .update(let section, let index, _, let after):
                return self.operation("replace", path: self.pointer(section, index), value: after.value)
            case .removeRecord(let section, let index, _):
                return self.operation("remove", path: self.pointer(section, index))
            case .removeSection(let name, _):
                return self.operation("remove", path: self.pointer(name, nil))
            case .renameSection(let from, let to):
                return .object([
                    .init(name: "op", value: .string("move")), .init(name: "from", value: .string(self.pointer(from, nil))),
                    .init(name: "path", value: .string(self.pointer(to, nil))),
                ])
            case .addSection(let name, let records):
                return self.operation("add", path: self.pointer(name, nil), value: .array(records.map(\.value)))
            case .addRecord(let section, let index, let record):
                return self.operation("add", path: self.pointer(section, index), value: record.value)
            }
        })
    }

    /// The list as `snapshot --output-format json` writes it: an array of records, or an object
    /// of arrays named by the sections.
    static func rendering(of sections: [MirroredSection], sectioned: Bool) -> ListValue {
        guard sectioned else { return .array(sections.flatMap { $0.records.map(\.value) }) }
        return .object(sections.map { .init(name: $0.model.model.text, value: .array($0.records.map(\.value))) })
    }

    private static func operation(_ op: String, path: String, value: ListValue? = nil) -> ListValue {
        var members: [ListValue.Member] = [.init(name: "op", value: .string(op)), .init(name: "path", value: .string(path))]
        if let value { members.append(.init(name: "value", value: value)) }
        return .object(members)
    }

    /// The JSON Pointer (RFC 6901) of record `index` of `section` (or of the section itself).
    private static func pointer(_ section: String?, _ index: Int?) -> String {
        var pointer = ""
        if let section { pointer += "/" + section.replacing("~", with: "~0").replacing("/", with: "~1") }
        if let index { pointer += "/\(index)" }
        return pointer
    }

    private static func line(_ operations: [ListValue]) -> [UInt8] {
        Array((ListValue.array(operations).jsonText + "\n").utf8)
    }
}
