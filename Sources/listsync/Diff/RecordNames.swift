import ListDiff
import ListFormats

/// How a diff names the records of one version of a list: by their key
/// values, or by their line when the list has no key.
final class RecordNames {
    let file: ListFile

    /// Line starts, indexed on first use (O(file size) once).
    private lazy var locator = file.list.makeLocator()

    init(_ file: ListFile) {
        self.file = file
    }

    /// The key values joined with `, `, or `line N`.
    func name(of record: ListRecord) -> String {
        guard file.isKeyed else { return "line \(line(of: record))" }
        return file.list.keyComponents(of: record).joined(separator: ", ")
    }

    /// The record's value.
    func value(of record: ListRecord) -> ListValue {
        file.list.value(of: record)
    }

    /// The line the record starts on.
    func line(of record: ListRecord) -> Int {
        locator.position(ofByteOffset: record.byteOffset).line
    }
}
