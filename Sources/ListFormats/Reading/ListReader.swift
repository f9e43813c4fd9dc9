#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DurableFiles

/// Reads list files: bytes in, a ``ParsedList`` out, or a positioned
/// ``ListFormatError``.
///
///     let reader = ListReader(options: ReadOptions(format: .csv(delimiter: .comma), key: ["id"]))
///     let list = try reader.read(contentsOfFile: "people.csv")
///     let changes = StagedChangeset(source: old.sections, target: list.sections)
///
/// Reading is one pass over the bytes, UTF-8 checked on the way, O(*n*); records
/// are slices of the file, with their identity and content hashed on the way,
/// and values are only decoded on demand. The byte-level work is vectorized C
/// (`CListFormatsScan`); a large list without sections is read in two halves
/// at once on a machine with two cores (``SplitRead``), with the same result.
public struct ListReader: Sendable {
    /// How to read.
    public var options: ReadOptions

    /// Creates a reader.
    public init(options: ReadOptions) {
        self.options = options
    }

    /// Reads a list from bytes. The list keeps `bytes` (no copy is made).
    ///
    /// Ill-formed UTF-8 anywhere in `bytes` is the error, whatever else is
    /// wrong with the file; the readers check it as they go (see
    /// ``UTF8Validation``), so an error they find first is only reported once
    /// the rest of the file is known to be well-formed.
    public func read(bytes: [UInt8]) throws(ListFormatError) -> ParsedList {
        try read(source: .bytes(FileBytes(bytes)))
    }

    /// Reads `source`, which the list keeps.
    private func read(source bytes: ListSource) throws(ListFormatError) -> ParsedList {
        let limit = options.effectiveSizeLimit
        guard bytes.count <= limit else { throw .fileTooLarge(size: bytes.count, limit: limit) }
        return try bytes.withUnsafeBufferPointer { buffer throws(ListFormatError) in
            var report = ReadReport()
            report.hadByteOrderMark = UTF8Validation.hasByteOrderMark(buffer)
            var validation = UTF8Validation(bytes: buffer)
            do throws(ListFormatError) {
                switch options.format {
                case .csv(let delimiter):
                    return try CSVReader(options: options, delimiter: delimiter.rawValue)
                        .read(buffer, keeping: bytes, report: report)
                case .json, .ndjson:
                    return try JSONReader(options: options)
                        .read(buffer, keeping: bytes, report: report, validation: &validation)
                }
            } catch {
                if case .invalidUTF8 = error { throw error }
                try validation.validateAll()
                throw error
            }
        }
    }

    /// Reads the file at `path`. A file larger than the size limit is refused
    /// before any of it is read.
    public func read(contentsOfFile path: String) throws(ListFormatError) -> ParsedList {
        try read(bytes: FileLoader.contents(ofFile: path, sizeLimit: options.effectiveSizeLimit))
    }

    /// Reads the file at `path` as ``read(contentsOfFile:)`` does, with the same result, from
    /// a read-only mapping of the file rather than a copy of it in fresh memory (which the
    /// kernel zeroes first: most of the cost of loading a large file). The list reads from the
    /// mapping for as long as it lives, so another program that truncates the file meanwhile
    /// makes this process fail with `SIGBUS`: for a one-shot reader such as `listsync diff`,
    /// not for a daemon. A file that cannot be mapped (not a regular file, an empty one) is
    /// read as ``read(contentsOfFile:)`` reads it.
    public func read(mappingFile path: String) throws(ListFormatError) -> ParsedList {
        let limit = options.effectiveSizeLimit
        let source = try FileLoader.withOpenFile(path) { descriptor, status throws(ListFormatError) -> ListSource in
            let size = Int(status.st_size)
            guard size <= limit else { throw .fileTooLarge(size: size, limit: limit) }
            if status.st_mode & S_IFMT == S_IFREG, size > 0, let mapping = try? MappedFileRegion(descriptor: descriptor, count: size, populate: true) {
                return .mapped(mapping)
            }
            return .bytes(FileBytes(try FileLoader.contents(of: descriptor, size: size, path: path)))
        }
        return try read(source: source)
    }
}
