import ArgumentParser

/// What `listsync diff` prints.
enum DiffOutputFormat: String, CaseIterable, ExpressibleByArgument {
    /// Lines for people: `+ − ~ →`, colored on a terminal.
    case human
    /// The changeset encoding, one JSON object per line.
    case ndjson
}
