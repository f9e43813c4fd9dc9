import ListDiff
import ListFormats
import ListSyncProtocol

/// One valid version of a watched file's list, as subscribers see it: immutable and shared by
/// the tracker (the next diff's source), the feed (snapshots) and every snapshot in progress.
final class WatchVersion: Sendable {
    /// The history the version belongs to: the watch's first, or the one a reload started when it
    /// changed how records are identified (key, section_by, format).
    let epoch: Epoch
    /// The version's number: 0 for the first one loaded, then one more per version, across epochs.
    let seq: UInt64
    /// The parsed file.
    let list: ParsedList
    /// The list as sections (a linear list is one section with model `null`), computed once.
    let sections: [ArraySection<SectionModel, ListRecord>]
    /// The digest of the whole list.
    let digest: ListDigest
    /// The number of records.
    let rowCount: Int

    /// Version `seq` of `list` in history `epoch`. O(*n*): computes the digest.
    init(epoch: Epoch, seq: UInt64, list: ParsedList) {
        self.epoch = epoch
        self.seq = seq
        self.list = list
        self.sections = list.sections
        self.digest = ListDigest(of: list)
        self.rowCount = self.sections.reduce(0) { $0 + $1.elements.count }
    }

    /// The cursor that names the version.
    var cursor: Cursor {
        Cursor(epoch: self.epoch, seq: self.seq)
    }
}
