import ListFormats
import Testing

@Suite struct ListSchemaTests {
    private func change(_ old: [String], _ new: [String]) -> SchemaChange {
        ListSchema(columns: new).changes(from: ListSchema(columns: old))
    }

    @Test func noChange() {
        #expect(change(["a", "b"], ["a", "b"]).isEmpty)
        #expect(change(["a", "b"], ["a", "b"]).description == "no schema change")
    }

    @Test func addedAndRemoved() {
        let result = change(["id", "name", "old"], ["id", "name", "new", "extra"])
        #expect(result.renamed == [SchemaChange.Rename(from: "old", to: "new")])
        #expect(result.added == ["extra"])
        #expect(result.removed.isEmpty)
        #expect(result.reordered.isEmpty)
        #expect(change(["id"], ["id", "x"]).added == ["x"])
        #expect(change(["id", "x"], ["id"]).removed == ["x"])
    }

    @Test func renamedInPlace() {
        let result = change(["id", "mail", "name"], ["id", "email", "name"])
        #expect(result == SchemaChange(renamed: [SchemaChange.Rename(from: "mail", to: "email")]))
        #expect(result.description == "renamed: mail → email")
    }

    @Test func reordered() {
        let result = change(["id", "name", "email"], ["id", "email", "name"])
        #expect(result == SchemaChange(reordered: ["id", "email", "name"]))
        // A removal alone is not a reordering.
        #expect(change(["a", "b", "c"], ["a", "c"]).reordered.isEmpty)
    }

    @Test func describesEveryKind() {
        let result = change(["a", "b", "c", "d"], ["d", "x", "c", "e", "f"])
        #expect(result.description == "added: e, f; removed: a; renamed: b → x; reordered: d, c")
    }

    @Test func csvSchemaIsTheHeader() throws {
        let old = try read("id,name\n1,a\n", csv).schema
        let new = try read("id,full_name,age\n1,a,3\n", csv).schema
        #expect(new.changes(from: old) == SchemaChange(added: ["age"], renamed: [SchemaChange.Rename(from: "name", to: "full_name")]))
    }

    @Test func jsonSchemaIsTheMembersInOrderOfFirstAppearance() throws {
        let list = try read(#"[{"id":1,"b":2},{"id":2,"b":3},{"c":1,"id":3},"scalar",{"\u0064":1,"b":1}]"#, .json)
        #expect(list.schema.columns == ["id", "b", "c", "d"])
    }
}
