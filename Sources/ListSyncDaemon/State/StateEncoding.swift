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
    mutating func raw(_ value: [UInt8]) {
        self.bytes.append(contentsOf: value)
    }

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

/// Reads what ``StateWriter`` wrote; every read checks bounds and fails with a reason.
struct StateReader {
    let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { self.offset == self.bytes.count }

    mutating func integer() throws(StateDamage.Reason) -> UInt64 {
        guard self.bytes.count - self.offset >= 8 else { throw .truncated(at: self.offset) }
        var value: UInt64 = 0
        for index in (0..<8).reversed() {
            value = value << 8 | UInt64(self.bytes[self.offset + index])
        }
        self.offset += 8
        return value
    }

    mutating func byteString() throws(StateDamage.Reason) -> ArraySlice<UInt8> {
        let count = try self.integer()
        guard count <= UInt64(self.bytes.count - self.offset) else { throw .truncated(at: self.offset) }
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
        guard count <= UInt64(self.bytes.count - self.offset) / 8 else { throw .truncated(at: self.offset) }
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
        guard let payload else { throw .truncated(at: self.offset) }
        self.offset = records.offset
        return payload
    }
}

/// What is wrong with a watch's state: the file, and why it cannot be used.
struct StateDamage: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why a state file cannot be used.
    enum Reason: Error, Hashable, Sendable, CustomStringConvertible {
        /// It ends in the middle of something (a crash mid-write, a full disk, a hand edit).
        case truncated(at: Int)
        /// A record's checksum does not match its content.
        case checksumMismatch(at: Int)
        /// It is not a state file of this version, or holds impossible values.
        case malformed(String, at: Int)
        /// It is missing while the other state files are there.
        case missing
        /// It cannot be read.
        case unreadable(StateFileError)
        /// It reads, but does not agree with the other state (another epoch, a different digest…).
        case inconsistent(String)

        /// A record that does not read (``ChecksummedRecordReader``), in these words.
        init(_ damage: ChecksummedRecordDamage) {
            switch damage {
            case .truncated(let offset): self = .truncated(at: offset)
            case .checksumMismatch(let offset): self = .checksumMismatch(at: offset)
            }
        }

        var description: String {
            switch self {
            case .truncated(let offset): return "truncated (at byte \(offset))"
            case .checksumMismatch(let offset): return "checksum mismatch in the record at byte \(offset)"
            case .malformed(let what, let offset): return "\(what) (at byte \(offset))"
            case .missing: return "missing"
            case .unreadable(let error): return "unreadable: \(error)"
            case .inconsistent(let what): return what
            }
        }
    }

    /// The damaged file.
    var path: String
    var reason: Reason

    var description: String { "\(self.path): \(self.reason)" }
}
