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

    /// How a command reads the file.
    enum Loading {
        /// Into memory (``ListReader/read(contentsOfFile:)``).
        case copied
        /// From a read-only mapping of the file (``ListReader/read(mappingFile:)``): no fresh
        /// memory zeroed and filled, the most of what loading a large file costs; for a command
        /// that reads its files once and exits (`diff`).
        case mapped
    }

    /// Reads the file at `path`; a failure names the file and the place in it.
    init(path: String, options: ReadOptions, loading: Loading = .copied) throws(CommandFailure) {
        self.path = path
        self.isKeyed = !options.key.isEmpty
        do {
            let reader = ListReader(options: options)
            switch loading {
            case .copied: list = try reader.read(contentsOfFile: path)
            case .mapped: list = try reader.read(mappingFile: path)
            }
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
