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
