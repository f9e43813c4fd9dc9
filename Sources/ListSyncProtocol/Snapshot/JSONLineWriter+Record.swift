import ListFormats

extension JSONLineWriter {
    /// Appends a record as an array element, as the changeset encoding writes records:
    /// `{"hash":"<32 hex digits>","value":<value>}`.
    mutating func record(value: ListValue, hash: ContentHash) {
        self.objectElement { object in
            object.member("hash", hash)
            object.member("value", value)
        }
    }

    /// Appends a record as ``record(value:hash:)`` does, its value's JSON written by `appendValue`.
    mutating func record(hash: ContentHash, appendValue: (inout [UInt8]) -> Void) {
        self.objectElement { object in
            object.member("hash", hash)
            object.member("value", writing: appendValue)
        }
    }
}
