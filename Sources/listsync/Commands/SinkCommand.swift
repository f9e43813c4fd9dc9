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
            written with the cursor of the watch's table (table listsync_cursors) in one transaction, and the \
            sink resumes from that cursor when it starts: nothing is skipped or applied twice. \
            A snapshot replaces the table's contents in one transaction. While the watched file is \
            invalid or missing the table keeps the last good version; when the watch is removed \
            from the daemon's configuration the sink says so and exits 0.

            The sink writes only a table its watch's sink made (listsync_tables records it): a \
            table of that name it did not make is left as it is, and the sink exits 1, unless \
            --take-over-table is given. One sink per table: a second exits 1 naming the holder. \
            A changeset that touches more than half of the rows (and at least 1000) refills the \
            table in its transaction, never dropping it.

            With --from nats://HOST:PORT the table is fed by the watch's JetStream stream \
            (`listsync sink nats`) instead of the daemon, which need not run: laid out as the \
            stream's last message says, each line's stream sequence committed with its cursor \
            (table listsync_stream_places), read on from the next message after a restart.

            Exit status: 0 the watch was removed, 1 usage or configuration error (no such watch, a \
            --key that is not the watch's key, a table the sink may not write or another sink holds, \
            with --from a stream that does not exist), 2 daemon or NATS unreachable at start, 3 data, \
            database or protocol error (with --from, a stream whose messages do not say how the watch \
            reads), 5 the daemon does not permit this user.
            """,
        subcommands: [SQLiteSinkCommand.self, PostgresSinkCommand.self, NATSSinkCommand.self]
    )
}
