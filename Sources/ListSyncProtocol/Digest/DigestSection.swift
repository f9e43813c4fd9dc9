import ListDiff
import ListFormats

/// A section as the version 2 digest reads it: its model's hash and its records' hashes, in order.
///
/// ``ListDigestTree`` keeps the digest of any list of such sections: the daemon's parsed sections
/// (`ArraySection<SectionModel, ListRecord>`) and a client's mirrored ones, which hold only what
/// the protocol sends.
public protocol DigestSection {
    /// The content hash of the section's model (for a linear list, the hash of `null`).
    var digestModelHash: ContentHash { get }
    /// The number of records.
    var digestRecordCount: Int { get }
    /// The content hash of the record at `index` (from 0).
    func digestRecordHash(_ index: Int) -> ContentHash
}

extension ArraySection: DigestSection where Model == SectionModel, Element == ListRecord {
    /// The model's content hash.
    public var digestModelHash: ContentHash { self.model.contentHash }
    /// The number of records.
    public var digestRecordCount: Int { self.elements.count }
    /// The content hash of record `index`.
    public func digestRecordHash(_ index: Int) -> ContentHash { self.elements[index].contentHash }
}
