import ListFormats
import ListSyncClient

/// A mirrored list written as a file: what `snapshot` prints and `mirror` keeps on disk, in the
/// shapes `listsync parse` writes — CSV with the list's own header (and the sections of a JSON
/// object of arrays in a column of their own), JSON an object of arrays when the list is
/// sectioned.
struct MirrorOutput {
    let format: ListFormat
    let sectionColumn: SectionColumnOption

    /// The bytes of `mirror`'s list. O(*n*).
    ///
    /// - Throws: ``ClientFailure/usage(_:)`` when the section column's name is taken.
    func bytes(of mirror: MirroredList) throws(ClientFailure) -> [UInt8] {
        try self.bytes(of: mirror.document, columns: mirror.schema.columns)
    }

    /// The bytes of `document`, a list with `columns` (its schema's). O(*n*).
    ///
    /// - Throws: ``ClientFailure/usage(_:)`` when the section column's name is taken.
    func bytes(of document: ListDocument, columns: [String]) throws(ClientFailure) -> [UInt8] {
        do {
            return try self.sectionColumn.write(document, format: self.format, columns: columns.isEmpty ? nil : columns)
        } catch {
            throw .usage("\(error)")
        }
    }

    /// The bytes of `mirror`'s list for a running `mirror`, which must not stop on a record that
    /// gains a member named like the section column: the sections then go to another column
    /// (``SectionColumnOption/writeAvoidingConflict(_:format:columns:)``), named in the second
    /// value. O(*n*).
    func mirrorBytes(of mirror: MirroredList) -> (bytes: [UInt8], renamedColumn: String?) {
        let columns = mirror.schema.columns
        return self.sectionColumn.writeAvoidingConflict(mirror.document, format: self.format, columns: columns.isEmpty ? nil : columns)
    }
}
