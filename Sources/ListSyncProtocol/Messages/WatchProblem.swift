import ListFormats

/// Why a watch's file could not be used — the `error` of an `invalid` or `missing` status — or
/// what a user should know about it though it reads: one of a status's `warnings`.
public struct WatchProblem: Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, without the position, e.g. `quoted field is never closed`.
    public var message: String
    /// Where in the file, when the problem is about its content: `line`, `column` and byte
    /// `offset` on the wire.
    public var position: SourcePosition?

    /// A problem at `position`.
    public init(message: String, position: SourcePosition? = nil) {
        self.message = message
        self.position = position
    }

    /// The problem a reader reported.
    public init(_ error: ListFormatError) {
        self.init(message: error.message, position: error.position)
    }

    /// The warning a reader reported.
    public init(_ warning: ReadWarning) {
        self.init(message: warning.message, position: warning.position)
    }

    /// `line:column: message`, or the message alone.
    public var description: String {
        guard let position = self.position else { return self.message }
        return "\(position): \(self.message)"
    }
}
