import ListFormats

/// A list file as a command reads it: where it came from and what ListFormats
/// made of it.
struct ListFile: Sendable {
    /// The path given on the command line.
    let path: String

    /// The parsed list.
    let list: ParsedList

    /// Whether records are identified by a key (rather than by their content).
    let isKeyed: Bool

    /// Reads the file at `path`; a failure names the file and the place in it.
    init(path: String, options: ReadOptions) throws(CommandFailure) {
        self.path = path
        self.isKeyed = !options.key.isEmpty
        do {
            list = try ListReader(options: options).read(contentsOfFile: path)
        } catch {
            throw .unreadableList(path: path, error)
        }
    }

    /// What the reader noticed that a user should know, as
    /// `file:line:column: warning: message` lines: keys that repeat (records
    /// without a key may repeat freely).
    var warnings: [String] {
        list.warnings(keyed: isKeyed).map { "\(path):\($0.position): warning: \($0.message)" }
    }

    /// Writes ``warnings`` to standard error.
    func reportWarnings() {
        for warning in warnings {
            OutputWriter.writeStandardError(warning + "\n")
        }
    }
}
