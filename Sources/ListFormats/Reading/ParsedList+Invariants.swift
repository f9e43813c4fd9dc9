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
        let arenaCount = storage.arena.bytes.count
        for section in sections {
            for record in section.elements {
                precondition(record.storage === storage, "a record of another list")
                precondition(record.slot.range.upperBound <= sourceCount, "a record outside the file")
                let key = record.slot.key
                if !key.isHash {
                    let end = key.isInArena ? Int(key.offset) * 8 + key.count : Int(key.offset) + key.count
                    precondition(end <= (key.isInArena ? arenaCount : sourceCount), "a key outside its buffer")
                    let hash = record.differenceIdentifier.keyBytes.withUnsafeBytes { StableHash.hash64($0) }
                    precondition(hash == record.slot.keyHash, "a key hash that is not its bytes' hash")
                }
            }
        }
        #endif
    }
}
