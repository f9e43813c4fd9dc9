import ArgumentParser
import ListFormats

/// `--section-column NAME`: the CSV column that keeps the sections of a list whose sections are
/// not a field of its records (a JSON object of arrays), for the commands that write lists.
struct SectionColumnOption: ParsableArguments {
    @Option(
        name: .customLong("section-column"),
        help: ArgumentHelp(
            "CSV output: the column that keeps each record's section when the sections are no field of the records (a JSON object of arrays); read it back with --section-by NAME.",
            valueName: "name"))
    var sectionColumn = "section"

    /// Why a list cannot be written with this section column.
    struct Conflict: Error, CustomStringConvertible {
        let column: String

        var description: String {
            "the records already have a member \"\(self.column)\": name the column that keeps the sections with --section-column NAME"
        }
    }

    /// The bytes of `document` in `format`, CSV columns `columns` (`nil`: the records' members),
    /// sections kept in the section column where CSV needs it.
    ///
    /// - Throws: ``Conflict`` when that column's name is one of the columns already.
    func write(_ document: ListDocument, format: ListFormat, columns: [String]?) throws(Conflict) -> [UInt8] {
        let writer = ListWriter(format: format, columns: columns, sectionColumn: self.sectionColumn)
        if let added = writer.addedSectionColumn(for: document), (columns ?? document.memberNames).contains(added) {
            throw Conflict(column: added)
        }
        return writer.write(document)
    }

    /// The bytes of `document` as ``write(_:format:columns:)`` makes them, but where the section
    /// column's name is one of the columns already, the sections are kept in the first of
    /// `NAME_2`, `NAME_3`, … that is not: a `mirror` goes on mirroring when a record gains a
    /// member of that name. Also returns the column used when it is not the one asked for.
    func writeAvoidingConflict(_ document: ListDocument, format: ListFormat, columns: [String]?) -> (bytes: [UInt8], renamedColumn: String?) {
        var writer = ListWriter(format: format, columns: columns, sectionColumn: self.sectionColumn)
        guard writer.addedSectionColumn(for: document) != nil else { return (writer.write(document), nil) }
        let taken = Set(columns ?? document.memberNames)
        guard taken.contains(self.sectionColumn) else { return (writer.write(document), nil) }
        let free = (2...).lazy.map { "\(self.sectionColumn)_\($0)" }.first { !taken.contains($0) } ?? self.sectionColumn
        writer.sectionColumn = free
        return (writer.write(document), free)
    }
}
