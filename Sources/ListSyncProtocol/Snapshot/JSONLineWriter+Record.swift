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
}
