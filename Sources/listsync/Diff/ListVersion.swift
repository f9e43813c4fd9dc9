import ListDiff
import ListFormats

/// One version of a list as ``HumanDiffRenderer`` shows it: its sections, and each record's
/// value, name and place. A file read offline (``FileVersion``, for `diff`) and a mirror before
/// or after a changeset (``MirrorVersion``, for `subscribe`) are both versions, so one renderer
/// serves both commands.
protocol ListVersion {
    /// What identifies a record across versions (its key, or its content without one).
    associatedtype Identifier: Hashable
    /// The identifiers of all records, section after section.
    associatedtype Identifiers: RandomAccessCollection<Identifier> where Identifiers.Index == Int

    /// The record count of each section (one section for a linear list).
    var sectionCounts: [Int] { get }

    /// The model of section `section`: its `section_by` value or member name (`null` for a
    /// linear list).
    func sectionModel(_ section: Int) -> ListValue

    /// The value of the record at `path`.
    func value(at path: ElementPath) -> ListValue

    /// What the record at `path` is called: its key values joined with `, `, or its place when
    /// the list has no key.
    func name(at path: ElementPath) -> String

    /// Where the record at `path` is, for moves: `line 10` in a file, `position 3` in a section
    /// of a mirror.
    func place(at path: ElementPath) -> String

    /// The identifiers of all records, in order; used only to tell where moved records were.
    var identifiers: Identifiers { get }
}
