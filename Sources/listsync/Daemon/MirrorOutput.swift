import ListFormats
import ListSyncClient

/// A mirrored list written as a file: what `snapshot` prints and `mirror` keeps on disk, in the
/// shapes `listsync parse` writes — CSV with the list's own header, JSON an object of arrays when
/// the list is sectioned.
struct MirrorOutput {
    let format: ListFormat

    /// The bytes of `mirror`'s list. O(*n*).
    func bytes(of mirror: MirroredList) -> [UInt8] {
        let columns = mirror.schema.columns
        return ListWriter(format: self.format, columns: columns.isEmpty ? nil : columns).write(mirror.document)
    }
}
