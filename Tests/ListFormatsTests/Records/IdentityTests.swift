import ListDiff
import ListFormats
import Testing

/// Keys, content equality, ignored fields, sections and duplicates.
@Suite struct IdentityTests {
    @Test func csvKeysCompareByValueAcrossLists() throws {
        let oldList = try read("id,name\n1,a\n\"x\"\"y\",b\n", csv, key: ["id"])
        let old = oldList.records
        let new = try read("name,id\nc,\"1\"\nd,\"x\"\"y\"\n", csv, key: ["id"]).records
        #expect(old[0].differenceIdentifier == new[0].differenceIdentifier)
        #expect(old[1].differenceIdentifier == new[1].differenceIdentifier)
        #expect(old[0].differenceIdentifier != old[1].differenceIdentifier)
        #expect(oldList.keyComponents(of: old[1]) == ["x\"y"])
        #expect(Set([old[0].differenceIdentifier, new[0].differenceIdentifier]).count == 1)
        #expect(old[1].differenceIdentifier.description.hasPrefix("#"))
    }

    @Test func compositeKeysDoNotRunTogether() throws {
        let list = try read("a,b\nx,yz\nxy,z\nx,yz\n", csv, key: ["a", "b"])
        let ids = list.records.map(\.differenceIdentifier)
        #expect(ids[0] != ids[1])
        #expect(ids[0] == ids[2])
        #expect(list.keyComponents(of: list.records[0]) == ["x", "yz"])
        #expect(list.report.duplicateCount == 1)
    }

    @Test func jsonKeysByNameAndByPointer() throws {
        let text = #"[{"id": 1, "meta": {"code": "a/b", "tags": ["t0", "t1"]}}, {"meta": {"code": "c", "tags": ["t2"]}, "id": 2}]"#
        func keys(_ key: [String]) throws -> [[String]] {
            let list = try read(text, .json, key: key)
            return list.records.map(list.keyComponents(of:))
        }
        #expect(try keys(["id"]) == [["1"], ["2"]])
        #expect(try keys(["/meta/code"]) == [[#""a/b""#], [#""c""#]])
        let byIndex = try keys(["/meta/tags/0", "/id"])
        #expect(byIndex == [[#""t0""#, "1"], [#""t2""#, "2"]])
    }

    @Test func jsonPointerEscapes() throws {
        let list = try read(#"[{"a/b": {"~": 7}}]"#, .json, key: ["/a~1b/~0"])
        #expect(list.keyComponents(of: list.records[0]) == ["7"])
        #expect(throws: ListFormatError.invalidFieldName("/a~2")) { try read("[]", .json, key: ["/a~2"]) }
    }

    @Test func jsonKeysAreTypedAndCanonical() throws {
        let list = try read(#"[{"id": 1}, {"id": "1"}, {"id": "\u0031"}, {"id": 1.0}]"#, .json, key: ["id"])
        let ids = list.records.map(\.differenceIdentifier)
        #expect(ids[0] != ids[1])  // a number is not a string
        #expect(ids[1] == ids[2])  // escapes don't count
        #expect(ids[0] != ids[3])  // numbers compare as written
        #expect(list.report.duplicateCount == 1)
    }

    @Test func objectValuedKeysCompareByContent() throws {
        let list = try read(#"[{"k": {"a": 1, "b": 2}}, {"k": {"b": 2, "a": 1}}, {"k": {"a": 2}}]"#, .json, key: ["k"])
        let ids = list.records.map(\.differenceIdentifier)
        #expect(ids[0] == ids[1])
        #expect(ids[0] != ids[2])
        // Shown as canonical text, members sorted.
        #expect(list.keyComponents(of: list.records[1]) == [#"{"a":1,"b":2}"#])
    }

    @Test func aMissingKeyFieldIsAPositionedError() {
        let error = readError("[{\"id\": 1},\n {\"name\": \"x\"}]", .json, key: ["id"])
        guard case .missingField("id", let at) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(at == SourcePosition(line: 2, column: 2, byteOffset: 13))
        guard case .missingField("/a/b", _) = readError(#"[{"a": {"c": 1}}]"#, .json, key: ["/a/b"]) else {
            Issue.record("expected missingField"); return
        }
        guard case .missingField = readError(#"["scalar"]"#, .json, key: ["id"]) else {
            Issue.record("expected missingField"); return
        }
    }

    @Test func withoutAKeyTheRecordIsItsIdentity() throws {
        let list = try read(#"[{"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": 1}]"#, .json)
        let ids = list.records.map(\.differenceIdentifier)
        #expect(ids[0] == ids[1])
        #expect(ids[0] != ids[2])
        #expect(list.report.duplicateCount == 1)
        #expect(list.report.firstDuplicateOffset == 19)
        #expect(ids[0].description.hasPrefix("#"))
    }

    @Test func jsonContentIgnoresWhitespaceMemberOrderAndEscapes() throws {
        let records = try read(
            #"[{"id":1,"v":{"x":[1,{"q":"é","p":null}],"y":"a/b"}}, { "v" : { "y" : "a\/b", "x" : [ 1, { "p" : null, "q" : "\u00e9" } ] }, "id" : 1 }]"#,
            .json, key: ["id"]
        ).records
        #expect(records[0].isContentEqual(to: records[1]))
    }

    @Test func jsonContentSeesRealChanges() throws {
        let texts = [
            #"{"id":1,"v":[1,2]}"#, #"{"id":1,"v":[2,1]}"#, #"{"id":1,"v":"1"}"#, #"{"id":1,"v":1.0}"#,
            #"{"id":1,"v":null}"#, #"{"id":1}"#, #"{"id":1,"w":null}"#, #"{"id":1,"v":{"a":[]}}"#,
            #"{"id":1,"v":{"a":{}}}"#, #"{"id":1,"v":[[]]}"#, #"{"id":1,"v":[{}]}"#,
        ]
        let records = try read("[" + texts.joined(separator: ",") + "]", .json, key: ["id"]).records
        #expect(Set(records.map(\.contentHash)).count == texts.count)
    }

    @Test func csvContentIgnoresQuotingStyle() throws {
        let records = try read("id,a,b\n1,x,\"\"\n\"1\",\"x\",\n1,\"x,\",\n1,\"x\"\"\",\n1,x\",\n", csv, key: ["id"]).records
        #expect(records[0].isContentEqual(to: records[1]))
        #expect(!records[0].isContentEqual(to: records[2]))
        #expect(records[3].isContentEqual(to: records[4]))  // "x""" and x" are both x"
    }

    @Test func ignoredFieldsAreLeftOutOfTheContent() throws {
        let csvRecords = try read("id,name,updated_at\n1,a,monday\n1,a,tuesday\n1,b,monday\n", csv, key: ["id"], ignore: ["updated_at"]).records
        #expect(csvRecords[0].isContentEqual(to: csvRecords[1]))
        #expect(!csvRecords[0].isContentEqual(to: csvRecords[2]))

        let text = #"[{"id":1,"at":1,"m":{"t":1,"v":1}},{"id":1,"at":2,"m":{"v":1,"t":2}},{"id":1,"at":2,"m":{"t":2,"v":2}}]"#
        let jsonRecords = try read(text, .json, key: ["id"], ignore: ["at", "/m/t"]).records
        #expect(jsonRecords[0].isContentEqual(to: jsonRecords[1]))
        #expect(!jsonRecords[0].isContentEqual(to: jsonRecords[2]))
    }

    @Test func ignoredFieldsAndKeylessIdentity() throws {
        let list = try read(#"[{"a":1,"t":1},{"a":1,"t":2}]"#, .json, ignore: ["t"])
        #expect(list.records[0].differenceIdentifier == list.records[1].differenceIdentifier)
    }

    @Test func sectionByGroupsInOrderOfFirstAppearance() throws {
        let list = try read("id,region\n1,eu\n2,us\n3,eu\n4,\"asia\"\n5,us\n", csv, key: ["id"], sectionBy: "region")
        #expect(list.sections.map(\.model.name) == ["eu", "us", "asia"])
        #expect(list.sections.map { $0.elements.map { list.keyComponents(of: $0)[0] } } == [["1", "3"], ["2", "5"], ["4"]])

        let json = try read(#"[{"id":1,"r":5},{"id":2,"r":"6"},{"id":3,"r":5}]"#, .json, key: ["id"], sectionBy: "r")
        #expect(json.sections.map(\.model.value) == [.number("5"), .string("6")])
        #expect(json.sections.map(\.elements.count) == [2, 1])
    }

    /// A section is named by its value's text (a JSON rendering's member name), so values that
    /// differ but read alike are a positioned error rather than two sections of one name.
    @Test(arguments: [(#""1""#, "1", "1"), ("true", #""true""#, "true"), ("null", #""""#, ""), (#"{"a":1}"#, #""{\"a\":1}""#, #"{"a":1}"#)])
    func sectionValuesThatReadAlikeAreAPositionedError(first: String, second: String, name: String) {
        let text = #"[{"r":"#+first+#"},{"r":"a"},\#n{"r":"#+second+"}]"
        guard case .sectionNameCollision(let collided, let at, let firstAt) = readError(text, .json, sectionBy: "r") else {
            Issue.record("expected sectionNameCollision for \(text)"); return
        }
        #expect(collided == name)
        #expect(at.line == 2 && at.column == 6 && firstAt.line == 1 && firstAt.column == 7)
    }

    @Test func aMissingSectionFieldIsAPositionedError() {
        guard case .missingField("r", let at) = readError(#"[{"r":1},{"x":1}]"#, .json, sectionBy: "r") else {
            Issue.record("expected missingField"); return
        }
        #expect(at.column == 10)
    }

    @Test func linearListsAreOneSection() throws {
        let list = try read("a\n1\n2\n", csv)
        #expect(!list.isSectioned)
        #expect(list.sections.count == 1)
        #expect(list.sections[0].model.value == .null)
        #expect(list.report.sectionCount == 0)
    }

    @Test func recordsKnowWhereTheyAre() throws {
        let list = try read("a\n1\n\"x\ny\"\n3\n", csv)
        let locator = list.makeLocator()
        #expect(list.records.map { locator.position(ofByteOffset: $0.byteOffset).line } == [2, 3, 5])
        #expect(list.records.map { String(decoding: list.sourceBytes(of: $0), as: UTF8.self) } == ["1", "\"x\ny\"", "3"])
    }
}
