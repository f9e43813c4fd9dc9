extension ParsedList {
    /// Checks what must hold for every list a reader returns; a violation is a
    /// bug in a reader, never a problem of the file. Runs in debug builds only
    /// (it is O(*n*)), after every read.
    func _checkInvariants() {
        #if DEBUG
        let sections = self.sections
        let recordCount = sections.reduce(0) { $0 + $1.elements.count }
        precondition(recordCount == report.recordCount, "the report counts \(report.recordCount) records, the list has \(recordCount)")
        switch layout {
        case .linear:
            precondition(report.sectionCount == 0, "a linear list reports sections")
        case .sectioned(let sections):
            precondition(report.sectionCount == sections.count, "the report counts \(report.sectionCount) sections")
            precondition(Set(sections.map(\.model)).count == sections.count, "two sections have the same model")
        }
        precondition(report.duplicateCount < max(recordCount, 1), "more duplicates than records")
        let sourceCount = storage.source.count
        for section in sections {
            for record in section.elements {
                precondition(record.byteRange.upperBound <= sourceCount, "a record outside the file")
            }
        }
        // Identities against the values they are read from (a sample: decoding is slow).
        for record in sections.lazy.flatMap(\.elements).prefix(64) {
            switch storage.encoding {
            case let encoding where encoding.isKeyed:
                let key = keyCanonicalBytes(of: record).withUnsafeBytes { StableHash.hash128($0) }
                precondition(record.differenceIdentifier.hash == key, "an identity that is not its key's hash")
            case .csv(let layout):
                // Keyless: the row's hash, which the published header seals into the content.
                precondition(
                    layout.contentHash(ofRow: record.differenceIdentifier.hash) == record.contentHash,
                    "a keyless identity that is not the hash of the record's row")
            case .json:
                precondition(record.differenceIdentifier.hash == record.contentHash, "a keyless identity that is not the content hash")
            }
            // What is published is what is hashed: JSON values without their ignored fields.
            if case .json = storage.encoding {
                precondition(value(of: record).contentHash == record.contentHash, "a published value that is not what its hash covers")
            }
        }
        #endif
    }
}
