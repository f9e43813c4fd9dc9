/// One record of a list: a slice of the file with a stable identity and a
/// content hash, diffable by `ListDiff` as is.
///
/// A record is 48 bytes whatever its size: identity and content are hashed
/// while the file is read, and the record's value is decoded from the file
/// only when ``value`` is asked for — the diff engine never needs it.
public struct ListRecord: Sendable {
    @usableFromInline let storage: ListStorage
    @usableFromInline let slot: RecordSlot

    init(storage: ListStorage, slot: RecordSlot) {
        self.storage = storage
        self.slot = slot
    }

    /// The stable 128-bit hash of the record's content (without ignored
    /// fields).
    @inlinable
    public var contentHash: ContentHash {
        slot.content
    }

    /// The offset of the record's first byte in the file.
    public var byteOffset: Int {
        Int(slot.start)
    }

    /// The record's bytes in the file (for CSV, the row without its line
    /// ending).
    public var sourceBytes: ArraySlice<UInt8> {
        storage.source[slot.range]
    }

    /// The record's value, decoded from the file: for CSV an object of
    /// strings in header order, for JSON the JSON value with numbers as
    /// written. O(record length).
    public var value: ListValue {
        storage.withRecordBytes(slot) { bytes in
            switch storage.encoding {
            case .csv(let layout):
                CSVRecordDecoder(layout: layout).value(ofRow: bytes)
            case .json:
                JSONValueDecoder.value(of: bytes)
            }
        }
    }
}
