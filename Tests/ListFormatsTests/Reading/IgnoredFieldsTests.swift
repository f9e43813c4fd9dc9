import ListFormats
import Testing

/// Ignored fields are left out of the published list: record values, the schema, and so every
/// snapshot, changeset and mirror — exactly what the content hash covers (issue 10 item 2).
@Suite struct IgnoredFieldsTests {
    @Test func csvValuesAndSchemaLeaveIgnoredColumnsOut() throws {
        let list = try read("id,updated_at,name\n1,monday,a\n2,tuesday,\"b,c\"\n", csv, key: ["id"], ignore: ["updated_at"])
        #expect(list.schema.columns == ["id", "name"])
        #expect(
            list.values == [
                .object([.init(name: "id", value: .string("1")), .init(name: "name", value: .string("a"))]),
                .object([.init(name: "id", value: .string("2")), .init(name: "name", value: .string("b,c"))]),
            ])
        #expect(list.keyComponents(of: list.records[1]) == ["2"])
    }

    /// An ignored key column still identifies records (the key is read from the whole row).
    @Test func anIgnoredKeyStillIdentifies() throws {
        let list = try read("id,name\n1,a\n2,b\n", csv, key: ["id"], ignore: ["id"])
        #expect(list.schema.columns == ["name"])
        #expect(list.records.map { list.keyComponents(of: $0) } == [["1"], ["2"]])
        #expect(list.values == [.object([.init(name: "name", value: .string("a"))]), .object([.init(name: "name", value: .string("b"))])])
    }

    /// Top-level members, nested members (JSON Pointer) and array elements by their index; the
    /// value left is the one whose canonical hash is the record's content hash.
    @Test func jsonValuesLeaveIgnoredPathsOut() throws {
        let text = #"[{"id":1,"at":"x","m":{"t":1,"v":1},"tags":["a","b","c"]},{"id":2,"m":3,"tags":{"0":"k","1":"l"}}]"#
        let list = try read(text, .json, key: ["id"], ignore: ["at", "/m/t", "/tags/0", "/tags/2"])
        #expect(list.schema.columns == ["id", "m", "tags"])
        let expected = try read(#"[{"id":1,"m":{"v":1},"tags":["b"]},{"id":2,"m":3,"tags":{"1":"l"}}]"#, .json, key: ["id"])
        #expect(list.values == expected.values)
        #expect(list.records.map(\.contentHash) == expected.records.map(\.contentHash))
        #expect(list.values.map(\.contentHash) == list.records.map(\.contentHash))
    }

    /// `parse --output-format` writes the values: ignored fields are not written either.
    @Test func writtenListsLeaveIgnoredFieldsOut() throws {
        let list = try read(#"[{"id":1,"updated_at":"monday","name":"a"}]"#, .json, key: ["id"], ignore: ["updated_at"])
        let written = String(decoding: ListWriter(format: csv).write(list), as: UTF8.self)
        #expect(written == "id,name\n1,a\n")
    }
}
