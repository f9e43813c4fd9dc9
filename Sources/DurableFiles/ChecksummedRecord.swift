import CXXHash

/// The one checksummed record format of the durable files — the daemon's checkpoint slots and
/// changeset log, and the CLI's state journals: the payload's length (8 bytes, little-endian),
/// the XXH3-64 of the payload (8 bytes, little-endian), then the payload. A torn or garbled
/// record is detected rather than misread; ``ChecksummedRecordReader`` reads records one after
/// another and says where the first bad one starts.
public enum ChecksummedRecord {
    /// The bytes before a record's payload: its length and its checksum.
    public static let headerSize = 16

    /// The record of `payload`: its frame header, then the payload. O(payload).
    public static func frame(_ payload: [UInt8]) -> [UInt8] {
        var record = self.header(count: payload.count, checksum: self.checksum(of: payload[...]))
        record.reserveCapacity(self.headerSize + payload.count)
        record.append(contentsOf: payload)
        return record
    }

    /// The frame header of a payload of `count` bytes whose checksum is `checksum`: for a
    /// payload written apart from its header (a checkpoint's list, never copied into a buffer).
    public static func header(count: Int, checksum: UInt64) -> [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(self.headerSize)
        withUnsafeBytes(of: UInt64(count).littleEndian) { header.append(contentsOf: $0) }
        withUnsafeBytes(of: checksum.littleEndian) { header.append(contentsOf: $0) }
        return header
    }

    /// The checksum of a payload: XXH3-64, fast enough to cover a 100 MB list.
    public static func checksum(of bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { buffer in
            // XXH3 never reads an empty input, but it wants a pointer.
            listsync_xxh3_64(buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), buffer.count)
        }
    }
}

/// Why a record cannot be read, and where it starts.
public enum ChecksummedRecordDamage: Error, Hashable, Sendable, CustomStringConvertible {
    /// The record (its frame header or its payload) runs past the end of the bytes: a crash
    /// while it was written, a full disk, a cut file.
    case truncated(at: Int)
    /// The payload's checksum does not match the record's: the record is garbled.
    case checksumMismatch(at: Int)

    /// The byte offset where the bad record starts.
    public var offset: Int {
        switch self {
        case .truncated(let offset), .checksumMismatch(let offset): offset
        }
    }

    public var description: String {
        switch self {
        case .truncated(let offset): "truncated (at byte \(offset))"
        case .checksumMismatch(let offset): "checksum mismatch in the record at byte \(offset)"
        }
    }
}

/// Reads ``ChecksummedRecord``s one after another from `bytes`, checking each; it stops at the
/// first torn or garbled record and says where it starts.
public struct ChecksummedRecordReader {
    /// The bytes read.
    public let bytes: [UInt8]
    /// Where the next record starts: after the last record read whole.
    public private(set) var offset: Int

    /// A reader of the records of `bytes` from `offset` on.
    public init(_ bytes: [UInt8], from offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Whether every byte is read.
    public var isAtEnd: Bool { self.offset >= self.bytes.count }

    /// The payload of the next record, checked against its length and checksum; `nil` at the
    /// end of the bytes. On damage the reader stays where the bad record starts.
    ///
    /// - Throws: ``ChecksummedRecordDamage`` with the record's offset.
    public mutating func next() throws(ChecksummedRecordDamage) -> ArraySlice<UInt8>? {
        guard !self.isAtEnd else { return nil }
        let start = self.offset
        guard self.bytes.count - start >= ChecksummedRecord.headerSize else { throw .truncated(at: start) }
        let count = self.integer(at: start)
        let checksum = self.integer(at: start + 8)
        let payloadStart = start + ChecksummedRecord.headerSize
        guard count <= UInt64(self.bytes.count - payloadStart) else { throw .truncated(at: start) }
        let payload = self.bytes[payloadStart..<payloadStart + Int(count)]
        guard ChecksummedRecord.checksum(of: payload) == checksum else { throw .checksumMismatch(at: start) }
        self.offset = payload.endIndex
        return payload
    }

    /// The payloads of every record up to the end, or up to the first bad one, which `damage`
    /// describes (its offset is where the whole records end). O(bytes).
    public mutating func readAll() -> (payloads: [ArraySlice<UInt8>], damage: ChecksummedRecordDamage?) {
        var payloads: [ArraySlice<UInt8>] = []
        do {
            while let payload = try self.next() { payloads.append(payload) }
        } catch {
            return (payloads, error)
        }
        return (payloads, nil)
    }

    /// Whether the record at ``offset`` would end exactly at the end of the bytes, as its
    /// length says: a bad record that is the last one (and so may be one a crash cut short).
    public var nextRecordIsLast: Bool {
        guard self.bytes.count - self.offset >= ChecksummedRecord.headerSize else { return true }
        let count = self.integer(at: self.offset)
        return count >= UInt64(self.bytes.count - self.offset - ChecksummedRecord.headerSize)
    }

    private func integer(at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<8).reversed() {
            value = value << 8 | UInt64(self.bytes[offset + index])
        }
        return value
    }
}
