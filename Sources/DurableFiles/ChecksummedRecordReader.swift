import CXXHash

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

    /// The payload length the next record's header declares (not checked against what
    /// follows); `nil` when fewer bytes than a header remain. What a reader of a file a record at
    /// a time needs to know how much to read next.
    public var declaredCount: UInt64? {
        guard self.bytes.count - self.offset >= ChecksummedRecord.headerSize else { return nil }
        return self.integer(at: self.offset)
    }

    private func integer(at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<8).reversed() {
            value = value << 8 | UInt64(self.bytes[offset + index])
        }
        return value
    }
}
