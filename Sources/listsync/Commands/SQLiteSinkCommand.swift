import ArgumentParser
import ListSyncSink

/// `listsync sink sqlite WATCH --database FILE`.
struct SQLiteSinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sqlite",
        abstract: "Keep a table of a SQLite database (WAL mode) equal to a watched list."
    )

    @OptionGroup var sink: SinkOptions

    @Option(help: ArgumentHelp("The database file, created when missing.", valueName: "file"))
    var database: String

    func run() async throws {
        try await self.sink.run { layout throws(SinkError) in
            try SQLiteSinkStore(path: self.database, watch: self.sink.name, layout: layout, takeOver: self.sink.takeOverTable)
        }
    }
}
