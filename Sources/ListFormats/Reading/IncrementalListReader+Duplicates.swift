extension IncrementalListReader {
    /// Whether `records` — the previous version's records at both ends (`keptPrefix` records at
    /// the start, `keptSuffix` at the end) around the records read again — certainly repeat no
    /// identity, when the previous version repeated none.
    ///
    /// The kept records are some of the previous version's, so they repeat no identity among
    /// themselves; a repeat needs a changed record whose identity is another changed record's or
    /// a kept one's. When the changed records' identity hashes (low halves) are distinct and none
    /// is a kept record's, no two records have one identity: the duplicate count is 0, exactly
    /// what ``DuplicateCounter`` counts, without its buffer of 10 bytes per record (zeroed fresh
    /// memory at every version) and its pass over them. `false` when it cannot tell cheaply (a
    /// hash met twice, or more changed records than a sixteenth of the list): then the counter
    /// counts.
    ///
    /// When every changed record's identity is one of the records they replace (`replaced`: the
    /// previous version's records between the same kept ends) — a record edited in place, records
    /// deleted or reordered within the region — no kept record is read at all: an identity of
    /// the replaced records occurred nowhere else in the previous version, so not among the kept
    /// ones. `keptRecordsRead` counts the kept records whose identity the check read.
    ///
    /// - Complexity: O(*c*) for changed records (*c* of them) whose identities are the replaced
    ///   ones'; otherwise O(*n*) reads of 8 bytes per kept record against a bitmap that stays in
    ///   the cache, and a set of the changed records' hashes; nothing when no record was read again.
    static func changedRecordsRepeatNoIdentity(
        _ records: ListRecords, keptPrefix: Int, keptSuffix: Int, replacing replaced: ListRecords,
        keptRecordsRead: inout Int
    ) -> Bool {
        let changedEnd = records.count - keptSuffix
        guard keptPrefix <= changedEnd else { return false }
        let changedCount = changedEnd - keptPrefix
        guard changedCount > 0 else { return true }
        let limit = max(records.count / 16, 64)
        guard changedCount <= limit else { return false }
        if replaced.count <= limit,
            Self.identities(of: records.records(in: keptPrefix..<changedEnd), areDistinctAndAmong: replaced)
        {
            return true
        }
        keptRecordsRead += records.count - changedCount
        // A bitmap of at least 64 bits per changed record (a kept record finds its bit set by
        // chance at most 1 time in 64) and 2^16 bits: a few kilobytes for a few changed rows.
        var bitCountLog2 = 16
        while 1 << bitCountLog2 < changedCount * 64 { bitCountLog2 += 1 }
        let shift = UInt64(64 - bitCountLog2)
        var bitmap = [UInt64](repeating: 0, count: 1 << (bitCountLog2 - 6))
        var changed = Set<UInt64>(minimumCapacity: changedCount)
        return bitmap.withUnsafeMutableBufferPointer { bitmap in
            for record in records.records(in: keptPrefix..<changedEnd) {
                let hash = record.differenceIdentifier.hash.low
                guard changed.insert(hash).inserted else { return false }
                let bit = Int(truncatingIfNeeded: hash >> shift)
                bitmap[bit >> 6] |= 1 << UInt64(bit & 63)
            }
            // The kept records, run by run in place (their shifts do not change their identities),
            // the pages of mapped ones let go a stretch at a time (issue 19: a whole pass).
            let kept = records.records(in: 0..<keptPrefix) + records.records(in: changedEnd..<records.count)
            return kept.forEachStretch { stretch, _ in
                for record in stretch {
                    let hash = record.differenceIdentifier.hash.low
                    let bit = Int(truncatingIfNeeded: hash >> shift)
                    if bitmap[bit >> 6] & (1 << UInt64(bit & 63)) != 0, changed.contains(hash) { return false }
                }
                return true
            }
        }
    }

    /// Whether the identities of `changed` are pairwise distinct and each is one of `replaced`'s.
    /// O(`changed` + `replaced`).
    private static func identities(of changed: ListRecords, areDistinctAndAmong replaced: ListRecords) -> Bool {
        guard changed.count <= replaced.count else { return false }
        var among = Set<RecordIdentity>(minimumCapacity: replaced.count)
        for record in replaced { among.insert(record.differenceIdentifier) }
        // Each identity found is taken out: one met twice among the changed records is not found again.
        for record in changed where among.remove(record.differenceIdentifier) == nil { return false }
        return true
    }
}
