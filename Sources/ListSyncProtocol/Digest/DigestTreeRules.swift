import Crypto
import ListFormats

/// The rules of the version 2 digest (docs/PROTOCOL.md, *Protocol version 2*), defined once for
/// the streaming ``ListDigest/Builder`` and the incremental ``ListDigestTree``.
///
/// The list is a sequence of **items**: for each section, a section item (tag `1`, the model's
/// 16-byte content hash) followed by one record item per record (tag `0`, the record's hash),
/// 17 bytes each. Items are cut into **leaves**: an item whose hash's last byte has its low six
/// bits zero ends a leaf (about one item in 64), and so does the list's last item. A leaf's
/// digest is the SHA-256 of its items' bytes. Leaf digests are cut into **nodes** the same way
/// (a leaf digest whose last byte has its low six bits zero ends a node, and so does the last
/// one); a node's digest is the SHA-256 of its leaves' digests. The list's digest is the SHA-256
/// of ``prefix``, the schema block and every node's digest in order. Boundaries depend only on
/// content, so an edit changes the leaves and nodes around it and no others.
enum DigestTreeRules {
    /// What the top hash starts with, so that no version 2 digest is a version 1 one.
    static let prefix = Array("listsync-digest-v2".utf8)
    /// The bytes of one item.
    static let itemSize = 17
    /// The bytes of one leaf or node digest.
    static let digestSize = 32
    /// The tag of a record item.
    static let recordTag: UInt8 = 0
    /// The tag of a section item.
    static let sectionTag: UInt8 = 1
    /// The low bits of a hash's last byte that must all be zero to end a leaf or node.
    static let boundaryMask: UInt8 = 0x3F

    /// Whether an item whose hash is `hash` ends a leaf: the hash's last byte (the lowest byte of
    /// its low half) has its low six bits zero.
    @inline(__always)
    static func endsLeaf(_ hash: ContentHash) -> Bool {
        UInt8(truncatingIfNeeded: hash.low) & Self.boundaryMask == 0
    }

    /// Whether a leaf whose digest's last byte is `lastByte` ends a node.
    @inline(__always)
    static func endsNode(lastByte: UInt8) -> Bool {
        lastByte & Self.boundaryMask == 0
    }

    /// Appends the 17 bytes of an item to `bytes`.
    @inline(__always)
    static func appendItem(tag: UInt8, hash: ContentHash, to bytes: inout [UInt8]) {
        bytes.append(tag)
        withUnsafeBytes(of: hash.high.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: hash.low.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends the SHA-256 of `bytes` to `digests`.
    @inline(__always)
    static func appendHash(of bytes: UnsafeRawBufferPointer, to digests: inout [UInt8]) {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        hasher.finalize().withUnsafeBytes { digests.append(contentsOf: $0) }
    }

    /// The list's digest from its schema block and the concatenated node digests.
    static func top(schemaBlock: [UInt8], nodeDigests: [UInt8]) -> ListDigest {
        var hasher = SHA256()
        hasher.update(data: Self.prefix)
        hasher.update(data: schemaBlock)
        nodeDigests.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        // SHA-256 always has 32 bytes.
        return ListDigest(bytes: Array(hasher.finalize())).unsafelyUnwrapped
    }
}
