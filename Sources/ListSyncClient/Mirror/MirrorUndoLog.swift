import ListDiff
import ListFormats
import ListSyncProtocol

/// What applying a changeset replaced, newest last, so that a changeset that turns out to be
/// wrong (a stage that does not fit, a digest that does not match) can be taken back.
///
/// Entries hold the replaced values themselves: a record removed in place, or a section rebuilt
/// by a stage keeps its old records array here, so keeping the log costs no copies and undoing
/// costs no more than applying did.
struct MirrorUndoLog {
    enum Entry {
        /// A record updated in place: its value before.
        case record(ElementPath, ChangesetStage.Record)
        /// A record removed in place: where it was, and the record.
        case removed(ElementPath, ChangesetStage.Record)
        /// A record inserted in place: where it is.
        case inserted(ElementPath)
        /// A section's records replaced (records removed or inserted): the array before.
        case records(section: Int, [ChangesetStage.Record])
        /// The sections replaced (sections deleted, inserted or moved): the array before.
        case sections([MirroredSection])
        /// A section's model updated: the model before.
        case model(section: Int, ChangesetStage.Section)
    }

    private var entries: [Entry] = []

    mutating func record(_ entry: Entry) {
        self.entries.append(entry)
    }

    /// Puts `sections` back as they were before the first entry.
    func rollBack(_ sections: inout [MirroredSection]) {
        for entry in self.entries.reversed() {
            switch entry {
            case .record(let path, let record):
                sections[path.section].records[path.element] = record
            case .removed(let path, let record):
                sections[path.section].records.insert(record, at: path.element)
            case .inserted(let path):
                sections[path.section].records.remove(at: path.element)
            case .records(let section, let records):
                sections[section].records = records
            case .sections(let before):
                sections = before
            case .model(let section, let model):
                sections[section].model = model
            }
        }
    }
}
