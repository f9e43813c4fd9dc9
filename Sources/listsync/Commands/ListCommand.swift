import ArgumentParser
import ListFormats
import ListSyncClient
import ListSyncProtocol

/// `listsync list`: the daemon's watches, with their cursor, row count and state.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the daemon's watches with their cursor, row count and state.",
        discussion: """
            --format table prints one aligned row per watch, then why each invalid or missing \
            watch is so (the reader's error, with its line and column), then the warnings of the \
            watches that have any (keys that repeat in the file: the first repeat, with its line \
            and column); --format ndjson one JSON object per watch, as the protocol's watch \
            summaries (name, format, sectioned, state, cursor, rows, key, path, error when the \
            watch is invalid or missing, warnings when there are any, and since, in milliseconds \
            since the Unix epoch, when the state is writing). A watch is writing while a writer \
            that modified its file still holds it open (a slow export): its last version stays \
            live until the writer closes the file; the table says for how long.

            Exit status: 0 success, 1 usage or configuration error, 2 daemon unreachable, 3 protocol error (the \
            daemon refused the client: unsupported_version, line_too_long, bad_request), 5 the \
            daemon does not permit this user.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("What to print.", valueName: "format"))
    var format: WatchListFormat = .table

    /// How `list` prints.
    enum WatchListFormat: String, CaseIterable, ExpressibleByArgument {
        case table
        case ndjson
    }

    func run() async throws {
        try await ClientFailure.exitingOnFailure {
            let client = ListSyncClient(configuration: self.connection.configuration(reconnect: .never))
            let watches = try await client.watches()
            var output = OutputWriter()
            switch self.format {
            case .table:
                output.write(Self.table(watches))
            case .ndjson:
                for watch in watches {
                    output.write(Self.object(watch).jsonText + "\n")
                }
            }
            output.flush()
        }
    }

    /// `NAME FORMAT STATE CURSOR ROWS`, aligned; `-` for what a watch does not have yet.
    static func table(_ watches: [WatchSummary]) -> String {
        let rows = [["NAME", "FORMAT", "STATE", "CURSOR", "ROWS"]] + watches.map { watch in
            [watch.name, watch.format + (watch.sectioned ? " (sectioned)" : ""), Self.state(watch),
             watch.cursor?.description ?? "-", watch.rows.map(String.init) ?? "-"]
        }
        // Aligned by display width, so that a name in CJK lines up.
        let widths = (0..<5).map { column in rows.map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - DisplayWidth.of(cell))
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
            + watches.compactMap { watch in watch.error.map { "\(watch.name): \(watch.state.rawValue): \($0)\n" } }.joined()
            + watches.flatMap { watch in watch.warnings.map { "\(watch.name): warning: \($0)\n" } }.joined()
    }

    /// The STATE cell: the state, and for `writing` how long the writer has held the file.
    static func state(_ watch: WatchSummary) -> String {
        guard watch.state == .writing, let since = watch.since else { return watch.state.rawValue }
        return "writing (\(WritingDuration.since(since)))"
    }

    static func object(_ watch: WatchSummary) -> ListValue {
        .object([
            ListValue.Member(name: "name", value: .string(watch.name)),
            ListValue.Member(name: "format", value: .string(watch.format)),
            ListValue.Member(name: "sectioned", value: .bool(watch.sectioned)),
            ListValue.Member(name: "state", value: .string(watch.state.rawValue)),
            ListValue.Member(name: "cursor", value: watch.cursor.map { .string($0.description) } ?? .null),
            ListValue.Member(name: "rows", value: watch.rows.map { .number(String($0)) } ?? .null),
            ListValue.Member(name: "key", value: .array(watch.key.map { .string($0) })),
        ] + (watch.path.map { [ListValue.Member(name: "path", value: .string($0))] } ?? [])
            + (watch.error.map { [ListValue.Member(name: "error", value: Self.object($0))] } ?? [])
            + (watch.warnings.isEmpty ? [] : [ListValue.Member(name: "warnings", value: .array(watch.warnings.map(Self.object)))])
            + (watch.since.map { [ListValue.Member(name: "since", value: .number(String($0)))] } ?? []))
    }

    /// A warning as the protocol writes it: `message`, and `line`, `column`, `offset` when placed.
    static func object(_ problem: WatchProblem) -> ListValue {
        var members = [ListValue.Member(name: "message", value: .string(problem.message))]
        if let position = problem.position {
            members += [
                ListValue.Member(name: "line", value: .number(String(position.line))),
                ListValue.Member(name: "column", value: .number(String(position.column))),
                ListValue.Member(name: "offset", value: .number(String(position.byteOffset))),
            ]
        }
        return .object(members)
    }
}
