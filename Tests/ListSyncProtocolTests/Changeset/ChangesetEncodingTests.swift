import ListDiff
import ListFormats
import ListSyncProtocol
import PropertyBased
import Testing

@Suite struct ChangesetEncodingTests {
    private func sectioned(_ text: String) throws -> ParsedList {
        try read(text, csv, key: ["id"], sectionBy: "group")
    }

    @Test func theEncodingOfEachKindOfStage() throws {
        let old = try sectioned("id,group,name\n1,a,x\n2,a,y\n3,b,z\n4,c,w\n")
        let new = try sectioned("id,group,name\n3,b,z\n2,a,Y\n5,d,v\n1,a,x\n")
        let changeset = StagedChangeset(source: old.sections, target: new.sections)
        let json = String(decoding: ChangesetEncoder.encode(changeset, source: old, target: new), as: UTF8.self)
        func hash(_ text: String) -> String { ListValue.string(text).contentHash.description }
        func rowHash(_ row: String) -> String {
            (try? read("id,group,name\n" + row + "\n", csv).records[0].contentHash.description) ?? ""
        }
        let expected = [
            #"{"element_updated":[{"at":[0,1],"key":["2"],"hash":"\#(rowHash("2,a,Y"))","value":{"id":"2","group":"a","name":"Y"}}]}"#,
            #"{"section_deleted":[2]}"#,
            #"{"section_inserted":[{"index":2,"model":"d","hash":"\#(hash("d"))","records":[{"hash":"\#(rowHash("5,d,v"))","value":{"id":"5","group":"d","name":"v"}}]}],"section_moved":[[1,0]]}"#,
            #"{"element_moved":[[[1,1],[1,0]]],"element_moved_keys":[["2"]]}"#,
        ]
        #expect(json == "[" + expected.joined(separator: ",") + "]")
    }

    @Test func linearChangesetsUseSectionZero() throws {
        let old = try read(#"[{"id":1},{"id":2},{"id":3}]"#, .json, key: ["id"])
        let new = try read(#"[{"id":3},{"id":1,"x":true}]"#, .json, key: ["id"])
        let stages = ChangesetEncoder.stages(of: StagedChangeset(source: old.records, target: new.records), source: old, target: new)
        #expect(stages.flatMap(\.elementDeleted) == [ElementPath(element: 1, section: 0)])
        #expect(stages.flatMap(\.elementUpdated).map(\.record.value) == [object(["id": .number("1"), "x": .bool(true)])])
        #expect(stages.flatMap(\.elementMoved).count == 1)
        let bytes = ChangesetEncoder.encode(StagedChangeset(source: old.records, target: new.records), source: old, target: new)
        #expect(try ChangesetDecoder.decode(bytes) == stages)
    }

    /// Deleted, moved, updated and inserted records name their key where the list has one (issue
    /// 10 item 12): a JSON key as its values, several key fields in key order; no key, no member.
    @Test func keyedRecordsNameTheirKeys() throws {
        let old = try read(#"[{"id":1,"n":"a"},{"id":2,"n":"b"},{"id":3,"n":"c"}]"#, .json, key: ["/id", "n"])
        let new = try read(#"[{"id":3,"n":"c"},{"id":1,"n":"a","x":0}]"#, .json, key: ["/id", "n"])
        let bytes = ChangesetEncoder.encode(StagedChangeset(source: old.records, target: new.records), source: old, target: new)
        let json = String(decoding: bytes, as: UTF8.self)
        #expect(json.contains(#""element_deleted":[[0,1]],"element_deleted_keys":[[2,"b"]]"#), "\(json)")
        #expect(json.contains(#""element_moved_keys":[[3,"c"]]"#) || json.contains(#""element_moved_keys":[[1,"a"]]"#), "\(json)")
        #expect(json.contains(#"{"at":[0,0],"key":[1,"a"],"hash""#), "\(json)")
        let decoded = try ChangesetDecoder.decode(bytes)
        #expect(decoded.flatMap(\.elementDeletedKeys) == [[.number("2"), .string("b")]])
        #expect(decoded.flatMap(\.elementUpdated).map(\.key) == [[.number("1"), .string("a")]])

        let keyless = try read(#"[{"id":1},{"id":2}]"#, .json)
        let changed = try read(#"[{"id":2},{"id":3}]"#, .json)
        let plain = String(
            decoding: ChangesetEncoder.encode(StagedChangeset(source: keyless.records, target: changed.records), source: keyless, target: changed),
            as: UTF8.self)
        #expect(!plain.contains("key"), "\(plain)")
    }

    @Test func anEmptyChangesetIsAnEmptyArray() throws {
        let list = try read("id\n1\n", csv, key: ["id"])
        #expect(ChangesetEncoder.encode(StagedChangeset(source: list.sections, target: list.sections), source: list, target: list) == Array("[]".utf8))
        #expect(try ChangesetDecoder.decode(Array("[]".utf8)).isEmpty)
    }

    @Test func decodingErrorsSayWhere() {
        #expect(throws: ChangesetDecodingError.unexpected(at: "stages[0].element_deleted[0]", expected: "an array of two")) {
            try ChangesetDecoder.decode(Array(#"[{"element_deleted":[1]}]"#.utf8))
        }
        #expect(throws: ChangesetDecodingError.unexpected(at: "stages[0].element_inserted[0].hash", expected: "32 hex digits")) {
            try ChangesetDecoder.decode(Array(#"[{"element_inserted":[{"at":[0,0],"hash":"xyz","value":1}]}]"#.utf8))
        }
        #expect(throws: ChangesetDecodingError.unexpected(at: "stages[1].section_moved[0][1]", expected: "a non-negative integer")) {
            try ChangesetDecoder.decode(Array(#"[{}, {"section_moved":[[0,-1]]}]"#.utf8))
        }
        #expect(throws: ChangesetDecodingError.unexpected(at: "stages", expected: "an array of stages")) {
            try ChangesetDecoder.decode(ListValue.object([]))
        }
        guard case .invalidJSON(.trailingComma) = decodeError("[{},]") else {
            Issue.record("expected invalidJSON(trailingComma)"); return
        }
    }

    private func decodeError(_ text: String) -> ChangesetDecodingError? {
        do {
            _ = try ChangesetDecoder.decode(Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    /// The bytes of a changeset decode as deep as a message does (MessageParser.maxNestingDepth),
    /// not to the reader's default depth: an array of one stage whose unknown member nests
    /// arrays down to `depth` levels, the stage being level 1 (as the reader counts: the outer
    /// array is the list, not a level).
    @Test func bytesDecodeAsDeepAsAMessage() throws {
        func nested(_ depth: Int) -> [UInt8] {
            Array(("[{\"future\":" + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}]").utf8)
        }
        #expect(try ChangesetDecoder.decode(nested(MessageParser.maxNestingDepth)) == [ChangesetStage()])
        guard case .invalidJSON = decodeError(String(decoding: nested(MessageParser.maxNestingDepth + 1), as: UTF8.self)) else {
            Issue.record("expected invalidJSON past MessageParser.maxNestingDepth"); return
        }
    }

    @Test func unknownMembersAreIgnored() throws {
        let stages = try ChangesetDecoder.decode(Array(#"[{"element_deleted":[[0,1]],"future":{"x":1}}]"#.utf8))
        #expect(stages == [ChangesetStage(elementDeleted: [ElementPath(element: 1, section: 0)])])
    }

    /// Two random versions of a sectioned list: diffed by the engine, encoded,
    /// decoded and applied to a mirror of the old version, they give the new.
    @Test func aMirrorFollowsEncodedChangesets() async {
        let version = Generator<String, Shrink.None<String>> { rng in
            let records = (0..<Int.random(in: 0...12, using: &rng)).map { _ in
                let id = Int.random(in: 0..<14, using: &rng)
                let group = ["a", "b", "c", "d"].randomElement(using: &rng) ?? "a"
                return #"{"id":\#(id),"group":"\#(group)","v":\#(Int.random(in: 0..<3, using: &rng))}"#
            }
            return "[" + records.joined(separator: ",") + "]"
        }
        await propertyCheck(count: 300, input: version, version) { oldText, newText in
            #expect(throws: Never.self) {
                let old = try read(oldText, .json, key: ["id"], sectionBy: "group")
                let new = try read(newText, .json, key: ["id"], sectionBy: "group")
                let bytes = ChangesetEncoder.encode(StagedChangeset(source: old.sections, target: new.sections), source: old, target: new)
                var mirror = Mirror(old)
                for stage in try ChangesetDecoder.decode(bytes) {
                    #expect(mirror.keyProblems(of: stage, field: "id").isEmpty, "\(String(decoding: bytes, as: UTF8.self))")
                    mirror.apply(stage)
                }
                #expect(mirror == Mirror(new), "\(String(decoding: bytes, as: UTF8.self))")

                let oldLinear = try read(oldText, .json, key: ["id"])
                let newLinear = try read(newText, .json, key: ["id"])
                let linear = ChangesetEncoder.encode(StagedChangeset(source: oldLinear.records, target: newLinear.records), source: oldLinear, target: newLinear)
                var linearMirror = Mirror(oldLinear)
                for stage in try ChangesetDecoder.decode(linear) {
                    #expect(linearMirror.keyProblems(of: stage, field: "id").isEmpty)
                    linearMirror.apply(stage)
                }
                #expect(linearMirror == Mirror(newLinear))
            }
        }
    }
}
