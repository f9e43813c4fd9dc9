import CListFormatsScan

/// The fast path of the JSON reader: flat records — objects whose members
/// are strings, numbers or literals, and such scalars — read, checked (UTF-8
/// included), hashed and captured many at a time by `listsync_json_scan`
/// (C, SIMD).
///
/// It takes only what it fully understands, with the same canonical text
/// (and so the same content hashes) as ``JSONScanner``, and stops before
/// anything else: a nested value, an escaped member name, a repeated name,
/// anything that is not JSON. The reader then reads that record with
/// ``JSONScanner``, which has the exact errors, and comes back. It is only
/// used when every field in the options is a top-level member.
struct JSONFlatRecordScanner: ~Copyable {
    private let scanner: OpaquePointer
    private let captureCount: Int
    private let records: UnsafeMutableBufferPointer<listsync_json_record>
    private let captures: UnsafeMutableBufferPointer<listsync_json_value>
    /// The records of the last batch that the fast path made whole.
    private let ready: UnsafeMutableBufferPointer<listsync_record>

    /// How records follow each other.
    enum Mode {
        /// Items of a JSON array.
        case array
        /// NDJSON lines.
        case lines
    }

    /// Where a batch stopped.
    enum Stop {
        /// At the start of a record the fast path leaves to ``JSONScanner``.
        case atRecord
        /// Right after its last record.
        case afterRecord
        /// At the end of the input (NDJSON).
        case atEnd
    }

    /// What one ``scan(_:from:mode:)`` read.
    struct Batch {
        var recordCount: Int
        var blankLineCount: Int
        var next: Int
        var stop: Stop
        /// Whether the last record has member names other than the one before.
        var hasNewShape: Bool
    }

    /// A fast path for `fields`; `nil` when a field is not a top-level member.
    init?(fields: JSONFieldTrie, recordCapacity: Int = 512) {
        guard let topLevel = fields.topLevelFields else { return nil }
        let captureCount = fields.captureCount
        let created: OpaquePointer? = topLevel.map(\.name).withUnsafeBufferPointers { names in
            let described = zip(names, topLevel).map { name, field in
                listsync_json_field(
                    name: name.baseAddress, length: Int64(name.count), capture: Int32(field.capture),
                    is_ignored: field.isIgnored)
            }
            return listsync_json_scanner_create(described, Int64(described.count), Int64(captureCount))
        }
        guard let created else { return nil }
        scanner = created
        self.captureCount = captureCount
        records = .allocate(capacity: recordCapacity)
        captures = .allocate(capacity: max(recordCapacity * captureCount, 1))
        ready = .allocate(capacity: recordCapacity)
    }

    deinit {
        listsync_json_scanner_destroy(scanner)
        records.deallocate()
        captures.deallocate()
        ready.deallocate()
    }

    /// Reads the flat records from `start`, the first byte of a record, up
    /// to the first record (or NDJSON line) that starts at or after `limit`.
    /// Records whose identity (`identity`, one of `LISTSYNC_IDENTITY_…`; a
    /// key in capture slot `keySlot`) it can take too are made whole
    /// (``readyRecords(from:to:)``).
    mutating func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, until limit: Int, mode: Mode, identity: Int32, keySlot: Int
    ) -> Batch {
        var batch = listsync_json_batch()
        listsync_json_scan(
            scanner, bytes.baseAddress, Int64(bytes.count), Int64(start), Int64(limit),
            Int32(mode == .array ? LISTSYNC_JSON_ARRAY : LISTSYNC_JSON_LINES), records.baseAddress,
            Int64(records.count), captures.baseAddress, identity, Int64(keySlot), ready.baseAddress, &batch)
        let stop: Stop =
            switch Int(batch.status) {
            case LISTSYNC_JSON_AFTER_RECORD: .afterRecord
            case LISTSYNC_JSON_AT_END: .atEnd
            default: .atRecord
            }
        return Batch(
            recordCount: Int(batch.record_count), blankLineCount: Int(batch.blank_line_count), next: Int(batch.next),
            stop: stop, hasNewShape: batch.has_new_shape)
    }

    /// The whole records of the last batch from record `start` on, up to the
    /// first that is not whole or `end`.
    func readyRecords(from start: Int, to end: Int) -> UnsafeBufferPointer<listsync_record> {
        var stop = start
        while stop < end, records[stop].is_ready { stop += 1 }
        return UnsafeBufferPointer(rebasing: ready[start..<stop])
    }

    /// Record `index` of the last batch: its bytes and content hash.
    func record(_ index: Int) -> (value: ValueDigest, content: ContentHash) {
        let record = records[index]
        return (
            ValueDigest(kind: .object, start: Int(record.start), end: Int(record.end)),
            ContentHash(low: record.content_low, high: record.content_high)
        )
    }

    /// What record `index` of the last batch has in capture slot `slot`.
    func captured(_ slot: Int, ofRecord index: Int) -> ValueDigest {
        let value = captures[index * captureCount + slot]
        let kind: ValueDigest.Kind
        switch Int(value.kind) {
        case LISTSYNC_JSON_STRING: kind = .string
        case LISTSYNC_JSON_ESCAPED_STRING: kind = .escapedString
        case LISTSYNC_JSON_NUMBER: kind = .number
        case LISTSYNC_JSON_LITERAL: kind = .literal
        default: return .absent
        }
        return ValueDigest(kind: kind, start: Int(value.start), end: Int(value.end))
    }

    /// The bytes of what record `index` of the last batch has in capture
    /// slot `slot`, when they are its canonical form (a string without
    /// escapes, a number, a literal).
    @inline(__always)
    func canonicalRange(_ slot: Int, ofRecord index: Int) -> Range<Int>? {
        let value = captures[index * captureCount + slot]
        switch Int(value.kind) {
        case LISTSYNC_JSON_STRING, LISTSYNC_JSON_NUMBER, LISTSYNC_JSON_LITERAL: return Int(value.start)..<Int(value.end)
        default: return nil
        }
    }

    /// Calls `body` with the member names (between their quotes, unescaped)
    /// of the last object record of the last batch.
    func forEachName(of bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeRawBufferPointer) -> Void) {
        var names: UnsafePointer<listsync_json_value>?
        let count = Int(listsync_json_scanner_shape(scanner, &names))
        guard let names, let base = bytes.baseAddress else { return }
        for name in UnsafeBufferPointer(start: names, count: count) {
            body(UnsafeRawBufferPointer(start: base + Int(name.start), count: Int(name.end - name.start)))
        }
    }
}

extension Array where Element == [UInt8] {
    /// Calls `body` with a buffer for each element, all valid at once.
    fileprivate func withUnsafeBufferPointers<R>(_ body: ([UnsafeBufferPointer<UInt8>]) -> R) -> R {
        var buffers: [UnsafeBufferPointer<UInt8>] = []
        func nest(_ index: Int) -> R {
            guard index < count else { return body(buffers) }
            return self[index].withUnsafeBufferPointer { buffer in
                buffers.append(buffer)
                return nest(index + 1)
            }
        }
        return nest(0)
    }
}
