import DurableFiles

/// The encoding of every state file: little-endian integers, length-prefixed byte strings, and
/// records in DurableFiles' one checksummed record format (``ChecksummedRecord``: their length
/// and the XXH3-64 of their payload), so a torn or garbled record is detected rather than misread.
struct StateWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) {
        self.bytes.reserveCapacity(capacity)
    }

    mutating func integer(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { self.bytes.append(contentsOf: $0) }
    }

    /// Appends `value` as it is, without its length.
    mutating func byteString(_ value: [UInt8]) {
        self.integer(UInt64(value.count))
        self.bytes.append(contentsOf: value)
    }

    mutating func string(_ value: String) {
        self.byteString(Array(value.utf8))
    }

    mutating func optionalString(_ value: String?) {
        self.integer(value == nil ? 0 : 1)
        if let value { self.string(value) }
    }

    mutating func strings(_ values: [String]) {
        self.integer(UInt64(values.count))
        for value in values { self.string(value) }
    }

    /// The record of `payload` (``ChecksummedRecord/frame(_:)``): its length (8 bytes), its
    /// XXH3-64 (8 bytes), then the payload.
    static func frame(_ payload: [UInt8]) -> [UInt8] {
        ChecksummedRecord.frame(payload)
    }
}
