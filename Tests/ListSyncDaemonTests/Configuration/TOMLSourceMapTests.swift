import Testing

@testable import ListSyncDaemon

@Suite("TOMLSourceMap")
struct TOMLSourceMapTests {
    private func line(_ path: TOMLSourceMap.Path, in text: String) -> Int? {
        let map = TOMLSourceMap(bytes: Array(text.utf8))
        return map.byteOffset(of: path).map { map.location(ofByteOffset: $0, file: "f").line }
    }

    @Test("keys, headers and array-of-tables elements get their own lines")
    func structure() {
        let text = """
            a = 1
            [t]
            b.c = 2
            [[w]]
            x = 1
            [[w]]
            "quoted key" = 3
            [w.sub]
            y = 4
            """
        #expect(line([.key("a")], in: text) == 1)
        #expect(line([.key("t")], in: text) == 2)
        #expect(line([.key("t"), .key("b"), .key("c")], in: text) == 3)
        #expect(line([.key("w")], in: text) == 4)
        #expect(line([.key("w"), .index(0), .key("x")], in: text) == 5)
        #expect(line([.key("w"), .index(1)], in: text) == 6)
        #expect(line([.key("w"), .index(1), .key("quoted key")], in: text) == 7)
        #expect(line([.key("w"), .index(1), .key("sub")], in: text) == 8)
        #expect(line([.key("w"), .index(1), .key("sub"), .key("y")], in: text) == 9)
    }

    @Test("strings, comments and multi-line values are skipped, not misread")
    func skipping() {
        let text = """
            s = "not [a] table # nor a comment \\" still the string"
            m = \"\"\"
            [[w]]
            x = 1\"\"\"\"
            l = '''
            ]'''
            arr = [ # comment with ] and [
              1, "two]",
              [3, 4],
              { k = "v", n = { deep = true } },
            ]
            after = 1
            """
        #expect(line([.key("w")], in: text) == nil)
        #expect(line([.key("l")], in: text) == 5)
        #expect(line([.key("arr"), .index(0)], in: text) == 8)
        #expect(line([.key("arr"), .index(1)], in: text) == 8)
        #expect(line([.key("arr"), .index(2), .index(1)], in: text) == 9)
        #expect(line([.key("arr"), .index(3), .key("n"), .key("deep")], in: text) == 10)
        #expect(line([.key("after")], in: text) == 12)
    }

    @Test("an unrecorded path falls back to its nearest recorded ancestor")
    func fallback() {
        let text = "\n\nids = [1, 2]\n"
        #expect(line([.key("ids"), .index(1), .key("nothing")], in: text) == 3)
        #expect(line([.key("absent")], in: text) == nil)
    }

    @Test("escapes in quoted keys are decoded")
    func escapedKeys() {
        let text = "\"a\\u00e9\\tb\" = 1\n'lit\\n' = 2\n"
        #expect(line([.key("a\u{e9}\tb")], in: text) == 1)
        #expect(line([.key("lit\\n")], in: text) == 2)
    }

    @Test("CRLF line endings count as one line break")
    func crlf() {
        #expect(line([.key("b")], in: "a = 1\r\n\r\nb = [\r\n 1,\r\n]\r\n") == 3)
    }

    @Test("columns count Unicode scalars; (line, column) converts back to the same byte offset")
    func columns() {
        let text = "k = \"\u{e9}\u{1F600}\" # x\nsecond = 1\n"
        let map = TOMLSourceMap(bytes: Array(text.utf8))
        let hash = Array(text.utf8).firstIndex(of: UInt8(ascii: "#")) ?? -1
        let location = map.location(ofByteOffset: hash, file: "f")
        #expect((location.line, location.column) == (1, 10))
        #expect(map.location(line: 1, column: 10, file: "f").byteOffset == hash)
        #expect(map.location(line: 2, column: 1, file: "f").byteOffset == hash + 4)
        #expect(map.location(line: 99, column: 99, file: "f").line == 3)
    }

    @Test("text that is not TOML ends the scan without a crash", arguments: [
        "[[", "a = [1, 2", "a = \"open", "= 3", "a = {b = }", "[t\nx = 1", "a = ]", "\"\\u12", "a.\n",
    ])
    func garbage(text: String) {
        let map = TOMLSourceMap(bytes: Array(text.utf8))
        _ = map.byteOffset(of: [.key("a")])
    }
}
