import ListDiff
import ListFormats
import ListSyncProtocol

/// One valid version of a watched file's list, as subscribers see it: immutable and shared by
/// the tracker (the next diff's source), the feed (snapshots) and every snapshot in progress.
final class WatchVersion: Sendable {
    /// The version's number: 0 for the first one loaded, then one more per changeset.
    let seq: UInt64
    /// The parsed file.
    let list: ParsedList
    /// The list as sections (a linear list is one section with model `null`), computed once.
    let sections: [ArraySection<SectionModel, ListRecord>]
    /// The digest of the whole list.
    let digest: ListDigest
    /// The number of records.
    let rowCount: Int

    /// Version `seq` of `list`. O(*n*): computes the digest.
    init(seq: UInt64, list: ParsedList) {
        self.seq = seq
        self.list = list
        self.sections = list.sections
        self.digest = ListDigest(of: list)
        self.rowCount = self.sections.reduce(0) { $0 + $1.elements.count }
    }
}
