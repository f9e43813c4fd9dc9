import CXXHash

/// The framing of every state file: little-endian integers, length-prefixed byte strings, and
/// records that carry their length and the XXH3-64 of their payload, so a torn or garbled record
/// is detected rather than misread.
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

    /// The frame of a record: its payload's length (8 bytes), the XXH3-64 of the payload (8
    /// bytes), then the payload.
    static func frame(_ payload: [UInt8]) -> [UInt8] {
        var writer = StateWriter(capacity: payload.count + 16)
        writer.integer(UInt64(payload.count))
        writer.integer(StateChecksum.of(payload[...]))
        writer.bytes.append(contentsOf: payload)
        return writer.bytes
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

    /// The payload of the next record, after checking its length and checksum.
    mutating func record() throws(StateDamage.Reason) -> ArraySlice<UInt8> {
        let start = self.offset
        let count = try self.integer()
        let checksum = try self.integer()
        guard count <= UInt64(self.bytes.count - self.offset) else { throw .truncated(at: start) }
        let payload = self.bytes[self.offset..<self.offset + Int(count)]
        guard StateChecksum.of(payload) == checksum else { throw .checksumMismatch(at: start) }
        self.offset += Int(count)
        return payload
    }
}

/// The checksum of state records: XXH3-64, fast enough to cover a whole checkpoint.
enum StateChecksum {
    static func of(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { buffer in
            // XXH3 never reads an empty input, but it wants a pointer.
            listsync_xxh3_64(buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), buffer.count)
        }
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
