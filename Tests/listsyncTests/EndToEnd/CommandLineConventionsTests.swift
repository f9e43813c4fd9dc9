import Glibc
import ListSyncProtocol
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// What users of other command lines expect: a global --socket, --version, completion.
    @Suite struct CommandLineConventionsTests {
        /// Runs `program ARGUMENTS` in the harness's directory to its end.
        static func run(_ harness: EndToEndHarness, _ program: String, _ arguments: [String], name: String) async throws -> (status: Int32, output: String, error: String) {
            let process = try ChildProcess(program, arguments, outputPath: harness.path("\(name)-\(UInt32.random(in: 0...UInt32.max)).out"), errorPath: harness.path("\(name)-\(UInt32.random(in: 0...UInt32.max)).err"))
            let status = try await process.waitForExit()
            return (status, process.output, process.errorOutput)
        }

        @Test func theSocketIsAcceptedBeforeTheSubcommandAsWellAsAfterIt() async throws {
            let harness = try await EndToEndHarness.running()
            let listsync = try EndToEndHarness.binary("listsync")
            let before = try await Self.run(harness, listsync, ["--socket", harness.socketPath, "list"], name: "before")
            let joined = try await Self.run(harness, listsync, ["--socket=\(harness.socketPath)", "list"], name: "joined")
            let after = try await harness.run("list", [])
            #expect(before.status == 0 && before.output.hasPrefix("NAME") && before.output.contains("products"), "\(before.error)")
            #expect(before.output == after.output && joined.output == after.output)
            let snapshot = try await Self.run(harness, listsync, ["--socket", harness.socketPath, "snapshot", "products"], name: "snapshot")
            #expect(snapshot.status == 0 && snapshot.output.contains("\"sku\""), "\(snapshot.error)")
            // A file command has no socket: the option is a usage error there, as after its name.
            let parse = try await Self.run(harness, listsync, ["--socket", harness.socketPath, "parse", harness.watched], name: "parse")
            #expect(parse.status == 2 && parse.error.contains("--socket"), "\(parse.error)")
        }

        @Test func bothBinariesPrintTheirVersion() async throws {
            let harness = try EndToEndHarness()
            for program in ["listsync", "listsyncd"] {
                let result = try await Self.run(harness, try EndToEndHarness.binary(program), ["--version"], name: program)
                #expect(result.status == 0 && result.output == ListSyncVersion.current + "\n", "\(program): \(result.error)")
            }
        }

        /// Every subcommand's help (found from `listsync --help`, nested ones too) spells an
        /// option's value the same way: `--state <file>` in `mirror` as in `exec`, `--key <field>`
        /// in `sink` as in `diff`.
        @Test func anOptionNamesItsValueAlikeInEverySubcommand() async throws {
            let harness = try EndToEndHarness()
            let listsync = try EndToEndHarness.binary("listsync")
            var valueNames: [String: Set<String>] = [:]
            var commands: [[String]] = [[]]
            var visited = 0
            while let command = commands.popLast() {
                let help = try await Self.run(harness, listsync, command + ["--help"], name: "help")
                #expect(help.status == 0, "\(command): \(help.error)")
                visited += 1
                var inSubcommands = false
                for line in help.output.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("SUBCOMMANDS:") { inSubcommands = true; continue }
                    if inSubcommands, line.isEmpty { inSubcommands = false }
                    // A subcommand's name is indented by two spaces; its abstract's next lines by more.
                    if inSubcommands, line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first {
                        commands.append(command + [String(name)])
                    }
                    let words = line.split(separator: " ")
                    for (index, word) in words.enumerated() where word.hasPrefix("--") && index + 1 < words.count {
                        let value = words[index + 1]
                        guard value.hasPrefix("<"), value.hasSuffix(">") else { continue }
                        valueNames[String(word), default: []].insert(String(value))
                    }
                }
            }
            #expect(visited >= 10, "the subcommands of listsync --help were not found")
            #expect(valueNames["--state"] == ["<file>"], "\(valueNames)")
            for (option, names) in valueNames.sorted(by: { $0.key < $1.key }) {
                #expect(names.count == 1, "\(option) is shown as \(names.sorted().joined(separator: " and "))")
            }
        }

        /// bash's completion of a watch name asks the daemon on the socket of the command line (or
        /// of LISTSYNC_SOCKET), and completes nothing, silently, when no daemon answers.
        @Test func watchNamesCompleteInBash() async throws {
            let harness = try EndToEndHarness(watches: [
                EndToEndHarness.Watch(), EndToEndHarness.Watch(name: "people", file: "people.json", key: ["id"], sectionBy: nil),
                EndToEndHarness.Watch(name: "prices", file: "prices.json", key: ["id"], sectionBy: nil),
            ])
            try FileContent.write(ProductVersions.csv(0), to: harness.watched)
            try FileContent.write(#"[{"id":1}]"#, to: harness.path("people.json"))
            try FileContent.write(#"[{"id":1}]"#, to: harness.path("prices.json"))
            try await harness.startDaemon()
            let listsync = try EndToEndHarness.binary("listsync")
            /// What bash completes for the words of `line` (the last one being completed).
            func complete(_ line: String, environment: String = "") async throws -> (words: String, error: String) {
                let script = """
                    source <("$0" --generate-completion-script bash)
                    COMP_LINE='\(line)'; read -ra COMP_WORDS <<< "$COMP_LINE"
                    [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
                    COMP_WORDS[0]="$0"; COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_POINT=${#COMP_LINE}
                    \(environment) _listsync; echo "${COMPREPLY[*]}"
                    """
                let result = try await Self.run(harness, "/bin/bash", ["-c", script, listsync], name: "complete")
                return (result.output.trimmingCharacters(in: .whitespacesAndNewlines), result.error)
            }
            #expect(try await complete("listsync subscribe --socket \(harness.socketPath) ").words == "products people prices")
            #expect(try await complete("listsync mirror --socket \(harness.socketPath) pr").words == "products prices")
            #expect(try await complete("listsync --socket \(harness.socketPath) exec pe").words == "people")
            #expect(try await complete("listsync snapshot p", environment: "LISTSYNC_SOCKET=\(harness.socketPath)").words == "products people prices")
            #expect(try await complete("listsync sink sqlite --socket \(harness.socketPath) pr").words == "products prices")
            #expect(try await complete("listsync sink postgres --socket \(harness.socketPath) peo").words == "people")
            let unreachable = try await complete("listsync subscribe --socket \(harness.path("nothing.sock")) ")
            #expect(unreachable.words.isEmpty && unreachable.error.isEmpty, "\(unreachable)")
        }
    }
}
