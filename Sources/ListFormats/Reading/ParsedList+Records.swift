extension ParsedList {
    /// The value of `record`, one of this list's records, decoded from the
    /// file: for CSV an object of strings in header order, for JSON the JSON
    /// value with numbers as written — without the fields the options
    /// ignore, which are not part of the published list. O(record length).
    public func value(of record: ListRecord) -> ListValue {
        storage.value(of: record)
    }

    /// Appends the value of `record`, one of this list's records, as compact JSON: the bytes
    /// `JSONText.append(value(of: record), to:)` writes, but for a CSV list written straight from
    /// the row, without building the ``ListValue`` (what a snapshot of a large list costs).
    /// O(record length).
    public func appendValueJSON(of record: ListRecord, to bytes: inout [UInt8]) {
        storage.appendPublishedJSON(of: record, to: &bytes)
    }

    /// The bytes of `record`, one of this list's records, in the file (for
    /// CSV, the row without its line ending).
    public func sourceBytes(of record: ListRecord) -> ArraySlice<UInt8> {
        let range = record.byteRange
        precondition(range.upperBound <= storage.source.count, "a record of another list")
        return storage.source[range]
    }

    /// The values of the key fields of `record`, one of this list's records,
    /// in key order (CSV: the field; JSON: canonical JSON text); empty when
    /// the list has no key. O(record length).
    public func keyComponents(of record: ListRecord) -> [String] {
        keyComponentBytes(of: record, hashingContainers: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The values of the key fields of `record`, one of this list's records, in key order (CSV:
    /// the fields' strings; JSON: the values, `null` where the record has none); `nil` when the
    /// list has no key. O(record length).
    public func key(of record: ListRecord) -> [ListValue]? {
        guard storage.encoding.isKeyed else { return nil }
        return key(decodedFrom: storage.decodedValue(of: record))
    }

    /// The published value and the key of `record`, one of this list's records, from one decoding
    /// of its bytes, as ``value(of:)`` and ``key(of:)`` give them (the changeset encoding names
    /// both for each record it carries). O(record length).
    public func valueAndKey(of record: ListRecord) -> (value: ListValue, key: [ListValue]?) {
        let decoded = storage.decodedValue(of: record)
        return (storage.publishedValue(decoded), storage.encoding.isKeyed ? key(decodedFrom: decoded) : nil)
    }

    /// The key fields' values in `value`, a record's whole decoded value.
    private func key(decodedFrom value: ListValue) -> [ListValue] {
        switch storage.encoding {
        case .csv(let layout):
            return layout.key.map { column in
                guard case .object(let members) = value, column < members.count else { return .string("") }
                return members[column].value
            }
        case .json(let key, _):
            return key.map { $0.value(in: value) ?? .null }
        }
    }

    /// The canonical bytes of the key of `record`, whose stable hash is its
    /// identity (see ``KeyCanonicalForm``).
    func keyCanonicalBytes(of record: ListRecord) -> [UInt8] {
        let components = keyComponentBytes(of: record, hashingContainers: true)
        var bytes = ByteScratch()
        for component in components {
            let prefix = components.count > 1 ? KeyCanonicalForm.beginField(in: &bytes) : nil
            component.withUnsafeBytes { bytes.append($0) }
            if let prefix { KeyCanonicalForm.endField(startedAt: prefix, in: &bytes) }
        }
        return Array(bytes.bytes())
    }

    /// The canonical bytes of each key field of `record`. A JSON object or
    /// array is its canonical text, or — in the identity, with
    /// `hashingContainers` — its hash (``KeyCanonicalForm/appendContainer(hash:to:)``).
    private func keyComponentBytes(of record: ListRecord, hashingContainers: Bool) -> [[UInt8]] {
        let value = storage.decodedValue(of: record)
        switch storage.encoding {
        case .csv(let layout):
            return layout.key.map { column in
                guard case .object(let members) = value, column < members.count else { return [] }
                return Array(members[column].value.text.utf8)
            }
        case .json(let key, _):
            return key.map { path in
                var output = ByteScratch()
                switch path.value(in: value) {
                case let field? where hashingContainers && field.isArrayOrObject:
                    KeyCanonicalForm.appendContainer(hash: field.contentHash, to: &output)
                case let field?:
                    JSONValueEncoder.append(field, sortsMembers: true, to: &output)
                case nil:
                    break
                }
                return Array(output.bytes())
            }
        }
    }
}

extension ParsedList {
    /// The values of all records in file order (sections one after the
    /// other). O(file size).
    public var values: [ListValue] {
        records.map(value(of:))
    }
}

extension ListValue {
    /// Whether the value is an array or an object.
    fileprivate var isArrayOrObject: Bool {
        switch self {
        case .array, .object: true
        default: false
        }
    }
}
