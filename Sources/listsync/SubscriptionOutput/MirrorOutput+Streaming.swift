import DurableFiles
import ListFormats
import ListSyncClient

extension MirrorOutput {
    /// The records written to the file per `write` call when a held list is streamed: a bound on
    /// the bytes in memory beside the list (a batch's rows), whatever the list's size.
    static let recordsPerWrite = 4096

    /// Replaces `writer`'s file with `mirror`'s list, atomically and durably, as
    /// ``mirrorBytes(of:)`` writes it; the second value names the section column in use when it
    /// is not --section-column's.
    ///
    /// A list that can be streamed (all but a CSV of a sectioned list or of a list without
    /// columns, as ``StreamedListFile``) is written a batch of ``recordsPerWrite`` records at a
    /// time through the temporary file: the list is held once, as the mirror's values, not also
    /// as the file's bytes (which a restarted mirror of a large list, writing FILE from its state,
    /// held on top of the list and of the state it read). The others are written whole.
    ///
    /// - Throws: ``SystemCallError`` naming the file and the step; the file is then unchanged.
    func write(_ mirror: MirroredList, to writer: AtomicFileWriter) throws(SystemCallError) -> String? {
        let columns = mirror.schema.columns
        if case .csv = self.format, mirror.isSectioned || columns.isEmpty {
            let (bytes, renamed) = self.mirrorBytes(of: mirror)
            try writer.write(bytes)
            return renamed
        }
        do {
            let file = try PendingReplacement(writer.path, through: writer.temporaryPath, permissions: 0o666)
            var stream = ListStreamWriter(format: self.format, columns: columns, sectioned: mirror.isSectioned)
            try file.write(stream.begin())
            for section in mirror.sections {
                var bytes = mirror.isSectioned ? stream.beginSection(section.model.model) : []
                var start = section.records.startIndex
                repeat {
                    let end = section.records.index(start, offsetBy: Self.recordsPerWrite, limitedBy: section.records.endIndex) ?? section.records.endIndex
                    bytes += stream.append(section.records[start..<end].lazy.map(\.value))
                    try file.write(bytes)
                    bytes = []
                    start = end
                } while start < section.records.endIndex
            }
            try file.write(stream.finish())
            try file.commit()
            return nil
        } catch {
            throw error.described
        }
    }
}
