import Testing

@testable import ListSyncDaemon

/// One configuration that must not load, with the problems (kind and line) it must report.
struct InvalidConfiguration: Sendable, CustomTestStringConvertible {
    var name: String
    var toml: String
    var expected: [(kind: String, line: Int)]

    var testDescription: String { self.name }
}

/// The catalogue of configurations that must fail, and where.
@Suite("Configuration errors")
struct ConfigurationErrorTests {
    static let invalidConfigurations: [InvalidConfiguration] = [
        InvalidConfiguration(
            name: "unterminated string (TOML syntax)",
            toml: "socket_mode = \"0660\"\n\nsocket = \"/run/x.sock\n",
            expected: [("syntax", 3)]
        ),
        InvalidConfiguration(
            name: "key defined twice (TOML syntax)",
            toml: "[[watch]]\nname = \"a\"\npath = \"/a.csv\"\nname = \"b\"\n",
            expected: [("syntax", 4)]
        ),
        InvalidConfiguration(
            name: "unknown format",
            toml: "[[watch]]\nname = \"a\"\npath = \"/a.csv\"\n\nformat = \"xml\"\n",
            expected: [("unknownFormat", 5)]
        ),
        InvalidConfiguration(
            name: "format that is not a string",
            toml: "[[watch]]\nname = \"a\"\npath = \"/a.csv\"\nformat = 3\n",
            expected: [("wrongType", 4)]
        ),
        InvalidConfiguration(
            name: "no format and an unknown extension",
            toml: "[[watch]]\nname = \"a\"\n\npath = \"/srv/a.txt\"\n",
            expected: [("formatNotInferable", 4)]
        ),
        InvalidConfiguration(
            name: "duplicate watch name, reported at the second definition",
            toml: "[[watch]]\nname = \"a\"\npath = \"/a.csv\"\n\n[[watch]]\npath = \"/b.csv\"\nname = \"a\"\n",
            expected: [("duplicateWatchName", 7)]
        ),
        InvalidConfiguration(
            name: "missing path, reported at the table header",
            toml: "socket_mode = \"0660\"\n\n[[watch]]\nname = \"a\"\n",
            expected: [("missingKey", 3)]
        ),
        InvalidConfiguration(
            name: "missing name in the second watch",
            toml: "[[watch]]\nname = \"a\"\npath = \"/a.csv\"\n[[watch]]\npath = \"/b.csv\"\n",
            expected: [("missingKey", 4)]
        ),
        InvalidConfiguration(
            name: "watch name with a space",
            toml: "[[watch]]\nname = \"my list\"\npath = \"/a.csv\"\n",
            expected: [("invalidValue", 2)]
        ),
        InvalidConfiguration(
            name: "watch name starting with a dot",
            toml: "[[watch]]\nname = \"..\"\npath = \"/a.csv\"\n",
            expected: [("invalidValue", 2)]
        ),
        InvalidConfiguration(
            name: "socket_mode with a non-octal digit",
            toml: "\nsocket_mode = \"0990\"\n",
            expected: [("invalidSocketMode", 2)]
        ),
        InvalidConfiguration(
            name: "socket_mode with special bits",
            toml: "socket_mode = \"1777\"\n",
            expected: [("invalidSocketMode", 1)]
        ),
        InvalidConfiguration(
            name: "socket_mode in symbolic form",
            toml: "socket_mode = \"rw-rw----\"\n",
            expected: [("invalidSocketMode", 1)]
        ),
        InvalidConfiguration(
            name: "socket_mode as a (decimal) integer",
            toml: "socket_mode = 660\n",
            expected: [("wrongType", 1)]
        ),
        InvalidConfiguration(
            name: "a user id that is a string, in a multi-line array",
            toml: "allow_uids = [\n  1000,\n  \"bob\",\n]\n",
            expected: [("wrongType", 3)]
        ),
        InvalidConfiguration(
            name: "a negative user id",
            toml: "allow_uids = [-1]\n",
            expected: [("invalidValue", 1)]
        ),
        InvalidConfiguration(
            name: "allow_groups that is not an array",
            toml: "\n\nallow_groups = \"listsync\"\n",
            expected: [("wrongType", 3)]
        ),
        InvalidConfiguration(
            name: "an empty group name",
            toml: "allow_groups = [\"daemon\",\n \"\"]\n",
            expected: [("invalidValue", 2)]
        ),
        InvalidConfiguration(
            name: "a group name the group database does not know",
            toml: "allow_groups = [\"daemon\",\n\n  \"no-such-group-listsync\"]\n",
            expected: [("invalidValue", 3)]
        ),
        InvalidConfiguration(
            name: "an empty key list",
            toml: "[[watch]]\nname = \"a\"\npath = \"/a.csv\"\nkey = []\n",
            expected: [("invalidValue", 4)]
        ),
        InvalidConfiguration(
            name: "a key column listed twice",
            toml: "[[watch]]\nname = \"a\"\npath = \"/a.csv\"\nkey = [\"id\", \"id\"]\n",
            expected: [("invalidValue", 4)]
        ),
        InvalidConfiguration(
            name: "an ignored key column",
            toml: "[[watch]]\nname = \"a\"\npath = \"/a.csv\"\nkey = [\"id\"]\nignore = [\"id\"]\n",
            expected: [("invalidValue", 5)]
        ),
        InvalidConfiguration(
            name: "an ignored section column",
            toml: "[[watch]]\nname = \"a\"\npath = \"/a.csv\"\nsection_by = \"c\"\nignore = [\"c\"]\n",
            expected: [("invalidValue", 5)]
        ),
        InvalidConfiguration(
            name: "an empty path",
            toml: "[[watch]]\nname = \"a\"\npath = \"\"\n",
            expected: [("invalidValue", 3)]
        ),
        InvalidConfiguration(
            name: "a path naming a directory",
            toml: "[[watch]]\nname = \"a\"\npath = \"/srv/data/\"\nformat = \"csv\"\n",
            expected: [("invalidValue", 3)]
        ),
        InvalidConfiguration(
            name: "a socket path longer than sun_path",
            toml: "socket = \"/\(String(repeating: "s", count: 107))\"\n",
            expected: [("invalidValue", 1)]
        ),
        InvalidConfiguration(
            name: "a settle delay out of range",
            toml: "settle_after_close_ms = -5\n",
            expected: [("invalidValue", 1)]
        ),
        InvalidConfiguration(
            name: "a zero history length",
            toml: "history_length = 0\n",
            expected: [("invalidValue", 1)]
        ),
        InvalidConfiguration(
            name: "[watch] written as a plain table",
            toml: "socket_mode = \"0660\"\n[watch]\nname = \"a\"\npath = \"/a.csv\"\n",
            expected: [("wrongType", 2)]
        ),
        InvalidConfiguration(
            name: "an inline watch with an unknown format, on its own line",
            toml: "watch = [\n  { name = \"a\", path = \"/a.csv\" },\n  { name = \"b\", path = \"/b.csv\", format = \"xls\" },\n]\n",
            expected: [("unknownFormat", 3)]
        ),
        InvalidConfiguration(
            name: "every problem is reported, in file order",
            toml: """
                socket_mode = "9"
                [[watch]]
                name = "a"
                path = "/a.txt"
                [[watch]]
                name = "a"
                path = "/b.csv"
                format = "yaml"
                [[watch]]
                path = "/c.csv"
                """,
            expected: [
                ("invalidSocketMode", 1), ("formatNotInferable", 4), ("unknownFormat", 8), ("missingKey", 9),
            ]
        ),
    ]

    @Test("each invalid configuration reports the expected problems at the expected lines", arguments: invalidConfigurations)
    func catalogue(entry: InvalidConfiguration) {
        let found = problems(of: entry.toml)
        #expect(found.map(kind) == entry.expected.map(\.kind), "\(found)")
        #expect(found.map { $0.location?.line } == entry.expected.map(\.line), "\(found)")
    }

    @Test("a syntax error carries TOMLKit's line, column and message, plus the byte offset")
    func syntaxPosition() throws {
        let found = problems(of: "socket_mode = \"0660\"\nsocket = = 3\n")
        guard case .syntax(let message, let at) = try #require(found.first) else {
            Issue.record("expected a syntax error, got \(found)")
            return
        }
        #expect(!message.isEmpty)
        #expect(at.line == 2)
        #expect(at.column == 10)
        #expect(at.byteOffset == 21 + 9)
    }

    @Test("the duplicate-name error also points at the first definition")
    func duplicateNameLocations() {
        let found = problems(of: "[[watch]]\nname = \"a\"\npath = \"/a.csv\"\n[[watch]]\n  name = \"a\"\npath = \"/b.csv\"\n")
        #expect(found.count == 1)
        guard case .duplicateWatchName(let name, let at, let first) = found.first else {
            Issue.record("expected a duplicate name, got \(found)")
            return
        }
        #expect(name == "a")
        #expect((at.line, at.column) == (5, 3))
        #expect((first.line, first.column) == (2, 1))
        #expect(found.first?.description == "/etc/listsyncd/listsyncd.toml:5:3: error: a watch named \"a\" is already defined at line 2")
    }

    @Test("invalid UTF-8 is reported at its line and column, before TOML parsing")
    func invalidUTF8() throws {
        let bytes = Array("socket_mode = \"0660\"\nsocket = \"/x".utf8) + [0xFF] + Array("\"\n".utf8)
        #expect {
            try DaemonConfiguration.parse(bytes: bytes, file: "c.toml", environment: userEnvironment)
        } throws: { error in
            guard case .invalidEncoding(_, let at) = (error as? ConfigurationError)?.problems.first else { return false }
            return (at.line, at.column, at.byteOffset) == (2, 13, 33)
        }
    }

    @Test("a NUL byte is rejected rather than silently ending the file")
    func nulByte() {
        // TOMLKit reads a C string: without this check, everything after the NUL would vanish.
        let text = "socket_mode = \"0660\"\n\u{0}\nsocket_mode = \"bad\"\n"
        #expect(problems(of: text).map(kind) == ["invalidEncoding"])
        #expect(problems(of: text).first?.location?.line == 2)
    }
}
