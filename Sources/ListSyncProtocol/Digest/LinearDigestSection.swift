import ListDiff
import ListFormats

/// A linear list's records as the one section the version 2 digest reads (model `null`), held as
/// ``ListFormats/ListRecords`` — runs that share their storage with another version of the list
/// — so that the digest tree of a version is updated from its records without copying them into
/// an array (``ListDigestTree/updated(schema:fromDigestSections:to:known:)``).
public struct LinearDigestSection: DigestSection, Sendable {
    /// The records.
    public let records: ListRecords

    public init(_ records: ListRecords) {
        self.records = records
    }

    /// The model `null`'s hash: what ``ListFormats/ParsedList/sections`` gives a linear list.
    private static let nullModelHash = SectionModel(value: .null).contentHash

    public var digestModelHash: ContentHash { Self.nullModelHash }
    public var digestRecordCount: Int { records.count }
    public func digestRecordHash(_ index: Int) -> ContentHash { records[index].contentHash }
}
