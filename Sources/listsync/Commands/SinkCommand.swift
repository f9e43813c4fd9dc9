import ArgumentParser

/// `listsync sink sqlite|postgres WATCH …`: keeps a database table equal to a watched list,
/// exactly once per cursor (the cursor commits with the rows).
struct SinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sink",
        abstract: "Keep a database table equal to a watched list.",
        discussion: """
            The table has one row per record; `ORDER BY listsync_order` (after the section's \
            position, for sectioned lists) gives the file's order. Each changeset's rows are \
            written with the watch's cursor (table listsync_cursors) in one transaction, and the \
            sink resumes from that cursor when it starts: nothing is skipped or applied twice. \
            A snapshot replaces the table's contents in one transaction. While the watched file is \
            invalid or missing the table keeps the last good version; when the watch is removed \
            from the daemon's configuration the sink says so and exits 0.

            Exit status: 0 the watch was removed, 1 usage or configuration error (no such watch, a \
            --key that is not the watch's key), \
            2 daemon unreachable at start, 3 data or database error, 5 the daemon does not permit \
            this user.
            """,
        subcommands: [SQLiteSinkCommand.self, PostgresSinkCommand.self]
    )
}
