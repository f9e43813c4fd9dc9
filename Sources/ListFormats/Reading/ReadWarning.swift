/// Something a reader noticed that a user should know though the list reads, at the place of its
/// first occurrence: records that repeat the key of an earlier one.
///
/// The offline `listsync diff` prints them as `file:line:column: warning: message`; the daemon
/// publishes them in a watch's status.
public struct ReadWarning: Hashable, Sendable, CustomStringConvertible {
    /// What was noticed, without the place.
    public var message: String
    /// Where it first happens.
    public var position: SourcePosition

    /// A warning at `position`.
    public init(message: String, position: SourcePosition) {
        self.message = message
        self.position = position
    }

    /// `line:column: message`.
    public var description: String {
        "\(self.position): \(self.message)"
    }
}

extension ParsedList {
    /// The warnings of this read (see ``ReadWarning``), from its ``report``.
    ///
    /// - Parameter keyed: Whether records are identified by a key. Records identified by their
    ///   content may repeat freely: equal records are not a mistake.
    /// - Complexity: O(*offset*) of the first repeat, to find its line and column.
    public func warnings(keyed: Bool) -> [ReadWarning] {
        guard keyed, self.report.duplicateCount > 0, let offset = self.report.firstDuplicateOffset else { return [] }
        let records = self.report.duplicateCount == 1 ? "record repeats the key" : "records repeat the key"
        return [
            ReadWarning(
                message: "\(self.report.duplicateCount) \(records) of an earlier one; the first is here",
                position: self.position(ofByteOffset: offset))
        ]
    }
}
