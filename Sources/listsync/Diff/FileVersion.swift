import ListDiff
import ListFormats

/// A list file read offline, as a ``ListVersion``: records named by their key or their line.
struct FileVersion: ListVersion {
    let file: ListFile
    private let sections: [ArraySection<SectionModel, ListRecord>]
    private let names: RecordNames
    let sectionCounts: [Int]

    init(_ file: ListFile) {
        self.file = file
        self.sections = file.list.sections
        self.names = RecordNames(file)
        self.sectionCounts = self.sections.map(\.elements.count)
    }

    func sectionModel(_ section: Int) -> ListValue { self.sections[section].model.value }

    func value(at path: ElementPath) -> ListValue { self.names.value(of: self.record(at: path)) }

    func name(at path: ElementPath) -> String { self.names.name(of: self.record(at: path)) }

    func place(at path: ElementPath) -> String { "line \(self.names.line(of: self.record(at: path)))" }

    var identifiers: LazyMapSequence<[ListRecord], ListRecord.DifferenceIdentifier> {
        self.file.list.records.lazy.map(\.differenceIdentifier)
    }

    private func record(at path: ElementPath) -> ListRecord {
        self.sections[path.section].elements[path.element]
    }
}
