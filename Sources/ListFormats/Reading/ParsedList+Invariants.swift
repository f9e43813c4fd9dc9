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
        storage.withBuffers { source, arena in
            for section in sections {
                for record in section.elements {
                    precondition(record.storage === storage, "a record of another list")
                    precondition(
                        record.slot.start >= 0 && record.slot.start + Int(record.slot.length) <= source.count,
                        "a record outside the file")
                    let key = record.slot.key
                    if !key.isHashed {
                        let bound = key.isInArena ? arena.count : source.count
                        precondition(key.offset >= 0 && key.offset + key.count <= bound, "a key outside its buffer")
                        precondition(StableHash.hash64(key.bytes(source: source, arena: arena)) == record.slot.keyHash, "a key hash that is not its bytes' hash")
                    }
                }
            }
        }
        #endif
    }
}
