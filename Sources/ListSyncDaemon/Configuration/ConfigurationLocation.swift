/// A position in a configuration file, for error messages a user can jump to.
public struct ConfigurationLocation: Sendable, Hashable, CustomStringConvertible {
    /// The configuration file, as given to the loader.
    public var file: String
    /// The line, counted from 1.
    public var line: Int
    /// The column, counted from 1 in Unicode scalars (the way TOML parsers count).
    public var column: Int
    /// The offset of the position from the start of the file, in bytes.
    public var byteOffset: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int, byteOffset: Int) {
        self.file = file
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
    }

    /// `file:line:column`, the form editors and terminals recognise.
    public var description: String {
        "\(self.file):\(self.line):\(self.column)"
    }
}
