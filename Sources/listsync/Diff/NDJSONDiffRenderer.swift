import ListFormats
import ListSyncProtocol

/// Writes a comparison for programs, one JSON object per line: first, when
/// the columns changed, `{"schema": {...}}` in the shape of the protocol's
/// changeset message; then one line per stage, each exactly a stage of the
/// changeset encoding (docs/PROTOCOL.md), so that the stage lines read as an
/// array are that encoding.
struct NDJSONDiffRenderer {
    let comparison: ListComparison

    func write(to output: inout OutputWriter) {
        if let change = comparison.schemaChange {
            output.write(Self.schemaLine(columns: comparison.new.list.schema.columns, change: change).jsonText + "\n")
        }
        for stage in comparison.stages {
            output.write(bytes: ChangesetEncoder.encode(stage) + [UInt8(ascii: "\n")])
        }
    }

    /// `{"schema":{"columns":[…],"added":[…],"removed":[…],"renamed":[{"from":…,"to":…}],"reordered":[…]}}`.
    static func schemaLine(columns: [String], change: SchemaChange) -> ListValue {
        func strings(_ values: [String]) -> ListValue {
            .array(values.map(ListValue.string))
        }
        let renamed = change.renamed.map { rename in
            ListValue.object([
                ListValue.Member(name: "from", value: .string(rename.from)),
                ListValue.Member(name: "to", value: .string(rename.to)),
            ])
        }
        return .object([
            ListValue.Member(name: "schema", value: .object([
                ListValue.Member(name: "columns", value: strings(columns)),
                ListValue.Member(name: "added", value: strings(change.added)),
                ListValue.Member(name: "removed", value: strings(change.removed)),
                ListValue.Member(name: "renamed", value: .array(renamed)),
                ListValue.Member(name: "reordered", value: strings(change.reordered)),
            ]))
        ])
    }
}
