extension IncrementalListReader {
    /// Brings `fingerprints` — those of the previous version's records — to those of `records`,
    /// the next version's: the records read again (`added`) replace the previous version's
    /// between the kept ends (`removed`). Made afresh from every record when there are none yet
    /// (the first version to follow another), when the change is a large part of the list (a
    /// pass over it costs less), or when the table is too full for the new count.
    ///
    /// Returns whether they were patched (false: made afresh).
    ///
    /// - Complexity: O(`removed.count + added.count`) probes of the table; O(*n*) when made afresh.
    static func update(
        _ fingerprints: inout IdentityFingerprints?, removing removed: ArraySlice<ListRecord>,
        adding added: ArraySlice<ListRecord>, of records: [ListRecord]
    ) -> Bool {
        if var patched = fingerprints.take(), removed.count + added.count <= max(records.count / 4, 64),
            patched.hasRoom(for: records.count)
        {
            let complete = removed.allSatisfy { patched.remove(IdentityFingerprints.fingerprint($0)) }
            if complete {
                for record in added { patched.insert(IdentityFingerprints.fingerprint(record)) }
                assert(patched.count == records.count)
                fingerprints = patched
                return true
            }
        }
        fingerprints = records.withUnsafeBufferPointer { IdentityFingerprints($0) }
        return false
    }

    /// Whether the records read again (`changed`) certainly repeat no identity among themselves
    /// or with the kept records, when the previous version repeated none: every one's
    /// fingerprint is held once in `fingerprints` (those of the whole new version).
    ///
    /// The kept records are some of the previous version's, so they repeat no identity among
    /// themselves; a repeat needs a changed record whose identity is another changed record's or
    /// a kept one's, and then its fingerprint is held twice. When none is, the duplicate count is
    /// 0, exactly what ``DuplicateCounter`` counts, without its pass over every record and its
    /// buffer of 10 bytes per record. `false` when it cannot tell cheaply (a fingerprint held
    /// twice, none kept): then the counter counts.
    ///
    /// - Complexity: O(`changed.count`) probes; nothing when no record was read again.
    static func changedRecordsRepeatNoIdentity(
        _ changed: ArraySlice<ListRecord>, fingerprints: IdentityFingerprints?
    ) -> Bool {
        guard let fingerprints else { return changed.isEmpty }
        return changed.allSatisfy { fingerprints.holdsOnce(IdentityFingerprints.fingerprint($0)) }
    }
}
