import ListFormats
import ListSyncProtocol

/// A mirrored section as the version 2 digest reads it, so that a mirror (and a sink's list of
/// row identities) keeps a ``ListDigestTree`` of its own.
extension MirroredSection: DigestSection {
    /// The model's hash.
    public var digestModelHash: ContentHash { self.model.hash }
    /// The number of records.
    public var digestRecordCount: Int { self.records.count }
    /// The hash of record `index`.
    public func digestRecordHash(_ index: Int) -> ContentHash { self.records[index].hash }
}
