import ListFormats
import Testing

@Suite struct ListSchemaTests {
    private func change(_ old: [String], _ new: [String]) -> SchemaChange {
        ListSchema(columns: new).changes(from: ListSchema(columns: old), byPosition: true)
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
        #expect(new.changes(from: old, byPosition: true) == SchemaChange(added: ["age"], renamed: [SchemaChange.Rename(from: "name", to: "full_name")]))
    }

    /// A CSV header renames in place (positions); JSON members have no position, so unrelated
    /// members that come and go are added and removed, never taken for a rename (issue 10 item 11).
    @Test func renamesArePositionalForCSVOnly() throws {
        let oldCSV = try read("id,Security,sector\n1,a,x\n", csv)
        let newCSV = try read("id,Company,sector\n1,a,x\n", csv)
        #expect(newCSV.schemaChange(from: oldCSV) == SchemaChange(renamed: [SchemaChange.Rename(from: "Security", to: "Company")]))
        let oldJSON = try read(#"[{"name":"a","currency":"NOK","callingCode":"47"}]"#, .json)
        let newJSON = try read(#"[{"name":"a","independent":true,"status":"official"}]"#, .json)
        let change = try #require(newJSON.schemaChange(from: oldJSON))
        #expect(change == SchemaChange(added: ["independent", "status"], removed: ["currency", "callingCode"]))
        #expect(change.description == "added: independent, status; removed: currency, callingCode")
    }

    /// Between JSON lists a new order of first appearance is a different schema (the digest
    /// covers it) but no reportable change; between CSV files it is a reorder.
    @Test func jsonOrderOfAppearanceIsNoReportableChange() throws {
        let old = try read(#"[{"id":1,"b":2}]"#, .json)
        let new = try read(#"[{"b":2,"id":1}]"#, .json)
        #expect(try #require(new.schemaChange(from: old)).isEmpty)
        #expect(new.schemaChange(from: new) == nil)
        let reordered = try read("b,id\n2,1\n", csv).schemaChange(from: try read("id,b\n1,2\n", csv))
        #expect(reordered == SchemaChange(reordered: ["b", "id"]))
    }

    /// The schema block that digests and CSV hashes start with: counts and lengths as 8 bytes
    /// big-endian, lengths in UTF-8 bytes.
    @Test func canonicalBytesAreLengthPrefixed() {
        let bytes = ListSchema(columns: ["id", "é"]).canonicalBytes
        #expect(bytes == [0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0x69, 0x64, 0, 0, 0, 0, 0, 0, 0, 2, 0xC3, 0xA9])
        #expect(ListSchema(columns: []).canonicalBytes == [0, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func jsonSchemaIsTheMembersInOrderOfFirstAppearance() throws {
        let list = try read(#"[{"id":1,"b":2},{"id":2,"b":3},{"c":1,"id":3},"scalar",{"\u0064":1,"b":1}]"#, .json)
        #expect(list.schema.columns == ["id", "b", "c", "d"])
    }
}
