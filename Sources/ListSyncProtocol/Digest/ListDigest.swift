import Crypto
import ListDiff
import ListFormats

/// The state of a whole list in 32 bytes, so a client can prove its mirror: the `digest` of
/// changesets and of a snapshot's last chunk.
///
/// It is the SHA-256 of the concatenation of the schema block (``ListSchema/canonicalBytes``:
/// the column count, then each column name's length and bytes, counts as 8 bytes big-endian),
/// then, section after section, the 16 bytes of the section model's content hash, the section's
/// record count as 8 bytes big-endian, then each record's 16-byte content hash in order. A content
/// hash's 16 bytes are its 32 hex digits read as bytes: the high half first, each half big-endian.
/// Every record and section carries its hash, so a client needs no hashing of its own beyond
/// SHA-256. The schema block makes the digest cover the field names: a mirror that kept a column's
/// old name fails verification, even when the list is empty.
///
/// ```swift
/// var builder = ListDigest.Builder(schema: schema)
/// for section in sections {
///     builder.beginSection(modelHash: section.modelHash, recordCount: section.records.count)
///     for record in section.records { builder.addRecord(record.hash) }
/// }
/// let digest = builder.finish()   // compare with the message's digest
/// ```
public struct ListDigest: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// The 32 bytes of the SHA-256.
    public let bytes: [UInt8]

    /// A digest from its 32 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// Parses 64 hex digits (either case).
    public init?(_ description: String) {
        let utf8 = Array(description.utf8)
        guard utf8.count == 64, utf8.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            bytes.append(Self.nibble(utf8[index]) << 4 | Self.nibble(utf8[index + 1]))
        }
        self.bytes = bytes
    }

    /// 64 lowercase hex digits, as on the wire.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in self.bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func nibble(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        default: return digit - UInt8(ascii: "A") + 10
        }
    }
}

extension ListDigest {
    /// Computes a ``ListDigest`` from scratch, section by section, record by record, in either
    /// ``DigestVersion``.
    ///
    /// O(*n*) in the number of records; version 1 input is buffered in 64 KiB blocks before
    /// hashing, version 2 hashes each leaf as it ends.
    public struct Builder {
        private var hasher = SHA256()
        /// The version 2 computation; `nil` for version 1.
        private var tree: DigestTreeHasher?
        /// Input not hashed yet: `buffer[..<buffered]`.
        private var buffer = [UInt8](repeating: 0, count: Self.blockSize)
        private var buffered = 0
        #if DEBUG
        /// Records the current section still expects, to catch a count that does not match.
        private var expectedRecords = 0
        #endif

        /// A builder of a `version` digest that starts with the schema block of `schema`;
        /// finished at once, it gives the digest of a list with these columns and no sections.
        public init(schema: ListSchema, version: DigestVersion = .v1) {
            switch version {
            case .v1:
                // Hashed directly, before the buffer takes the 8-byte values that follow.
                self.hasher.update(data: schema.canonicalBytes)
            case .v2:
                self.tree = DigestTreeHasher(schemaBlock: schema.canonicalBytes)
                self.buffer = []
            }
        }

        private static let blockSize = 64 << 10

        /// Starts a section whose model has `modelHash` and which holds `recordCount` records;
        /// then add exactly that many records.
        public mutating func beginSection(modelHash: ContentHash, recordCount: Int) {
            #if DEBUG
            precondition(self.expectedRecords == 0, "the previous section still expects \(self.expectedRecords) records")
            self.expectedRecords = recordCount
            #endif
            if self.tree != nil {
                self.tree?.add(tag: DigestTreeRules.sectionTag, hash: modelHash)
                return
            }
            self.append(modelHash)
            self.append(UInt64(recordCount))
        }

        /// Adds the next record of the current section.
        public mutating func addRecord(_ contentHash: ContentHash) {
            #if DEBUG
            precondition(self.expectedRecords > 0, "a record beyond the section's count")
            self.expectedRecords -= 1
            #endif
            if self.tree != nil {
                self.tree?.add(tag: DigestTreeRules.recordTag, hash: contentHash)
                return
            }
            self.append(contentHash)
        }

        /// The digest of everything added.
        public consuming func finish() -> ListDigest {
            #if DEBUG
            precondition(self.expectedRecords == 0, "the last section still expects \(self.expectedRecords) records")
            #endif
            if let tree = self.tree {
                return tree.finish()
            }
            self.flush()
            // SHA-256 always has 32 bytes.
            return ListDigest(bytes: Array(self.hasher.finalize())).unsafelyUnwrapped
        }

        private mutating func append(_ hash: ContentHash) {
            self.append(hash.high)
            self.append(hash.low)
        }

        private mutating func append(_ value: UInt64) {
            if self.buffered == Self.blockSize {
                self.flush()
            }
            // blockSize is a multiple of 8, so a value always fits whole.
            let offset = self.buffered
            self.buffer.withUnsafeMutableBytes { $0.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self) }
            self.buffered += 8
        }

        private mutating func flush() {
            let count = self.buffered
            self.buffer.withUnsafeBytes { self.hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            self.buffered = 0
        }
    }
}

extension ListDigest {
    /// The `version` digest of a list read by `ListFormats`: its schema, then its sections (a
    /// linear list is one section with model `null`).
    ///
    /// - Complexity: O(*n*) in the number of records.
    public init(of list: ParsedList, version: DigestVersion = .v1) {
        var builder = Builder(schema: list.schema, version: version)
        for section in list.sections {
            builder.beginSection(modelHash: section.model.contentHash, recordCount: section.elements.count)
            // Through the buffer: hashes read in place, without bounds checks.
            section.elements.withUnsafeBufferPointer { records in
                for index in records.indices {
                    builder.addRecord(records[index].contentHash)
                }
            }
        }
        self = builder.finish()
    }
}
