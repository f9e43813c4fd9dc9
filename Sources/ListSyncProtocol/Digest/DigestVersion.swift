/// Which definition of the list digest a connection uses: the protocol version it negotiated in
/// `hello` decides (docs/PROTOCOL.md, *Digest* and *Protocol version 2*).
public enum DigestVersion: Int, Hashable, Sendable, CaseIterable {
    /// Protocol version 1: the SHA-256 of the schema block and every section's and record's
    /// hash in order. O(*n*) to compute for every version.
    case v1 = 1
    /// Protocol version 2: a two-level content-defined tree over the same hashes
    /// (``ListDigestTree``), which the daemon updates in O(changed records) per version.
    case v2 = 2

    /// The digest version of protocol `version` (2 and later use ``v2``).
    public init(protocol version: Int) {
        self = version >= 2 ? .v2 : .v1
    }
}
