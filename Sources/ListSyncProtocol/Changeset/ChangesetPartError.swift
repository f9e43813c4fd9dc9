/// A changeset part that does not continue the changeset being received (``ChangesetPartAssembly``):
/// a part went missing, or the parts held would exceed the bound. Like a gap in `prev_seq`, the
/// subscriber resubscribes with its cursor.
public struct ChangesetPartError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The cursor of the changeset the part belongs to.
    public var cursor: Cursor
    /// The part's number.
    public var part: Int
    /// Why it does not follow.
    public var reason: String

    /// An error for part `part` of changeset `cursor`.
    public init(cursor: Cursor, part: Int, reason: String) {
        self.cursor = cursor
        self.part = part
        self.reason = reason
    }

    /// `changeset CURSOR part N: REASON`.
    public var description: String { "changeset \(self.cursor) part \(self.part): \(self.reason)" }
}
