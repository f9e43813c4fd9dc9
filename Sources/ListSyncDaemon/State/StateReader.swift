import DurableFiles

/// Reads what ``StateWriter`` wrote; every read checks bounds and fails with a reason.
struct StateReader {
    let bytes: [UInt8]
    private(set) var offset: Int
    /// Where the bytes read end: the end of ``bytes``, or of the record read within them.
    private let end: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
        self.end = bytes.count
    }

    /// A reader of `range` of `bytes` (a record's payload, as ``record()`` returns it), without
    /// copying it out: a checkpoint's header may carry a changeset of hundreds of MiB.
    init(_ bytes: [UInt8], within range: Range<Int>) {
        self.bytes = bytes
        self.offset = range.lowerBound
        self.end = range.upperBound
    }

    var isAtEnd: Bool { self.offset == self.end }

    mutating func integer() throws(StateDamage.Reason) -> UInt64 {
        guard self.end - self.offset >= 8 else { throw .truncated(at: self.offset) }
        var value: UInt64 = 0
        for index in (0..<8).reversed() {
            value = value << 8 | UInt64(self.bytes[self.offset + index])
        }
        self.offset += 8
        return value
    }

    mutating func byteString() throws(StateDamage.Reason) -> ArraySlice<UInt8> {
        let count = try self.integer()
        guard count <= UInt64(self.end - self.offset) else { throw .truncated(at: self.offset) }
        defer { self.offset += Int(count) }
        return self.bytes[self.offset..<self.offset + Int(count)]
    }

    mutating func string() throws(StateDamage.Reason) -> String {
        let bytes = try self.byteString()
        guard let string = String(validating: bytes, as: UTF8.self) else { throw .malformed("a name is not UTF-8", at: self.offset) }
        return string
    }

    mutating func optionalString() throws(StateDamage.Reason) -> String? {
        switch try self.integer() {
        case 0: return nil
        case 1: return try self.string()
        default: throw .malformed("a flag is neither 0 nor 1", at: self.offset - 8)
        }
    }

    mutating func strings() throws(StateDamage.Reason) -> [String] {
        let count = try self.integer()
        guard count <= UInt64(self.end - self.offset) / 8 else { throw .truncated(at: self.offset) }
        var values: [String] = []
        for _ in 0..<count { values.append(try self.string()) }
        return values
    }

    /// The payload of the next record, after checking its length and checksum
    /// (``ChecksummedRecordReader``).
    mutating func record() throws(StateDamage.Reason) -> ArraySlice<UInt8> {
        var records = ChecksummedRecordReader(self.bytes, from: self.offset)
        let payload: ArraySlice<UInt8>?
        do {
            payload = try records.next()
        } catch {
            throw StateDamage.Reason(error)
        }
        guard let payload, records.offset <= self.end else { throw .truncated(at: self.offset) }
        self.offset = records.offset
        return payload
    }
}
