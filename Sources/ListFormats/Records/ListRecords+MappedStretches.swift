import DurableFiles

extension ListRecords {
    /// How many records of a mapped run a whole pass reads before it lets their pages go: 4 MiB
    /// of them, as ``DurableFiles/FileBytes/mappedStretchLength`` for bytes.
    public static let mappedStretchCount = FileBytes.mappedStretchLength / MemoryLayout<ListRecord>.stride

    /// Whether any run is a range of a mapped file region.
    public var holdsMappings: Bool {
        runs.contains { $0.storage.mappedRegion != nil }
    }

    /// Calls `body` with the records in order as they lie in their storage (unshifted), in
    /// place, with the shift to add to each one's byte offset: an array's run whole, a mapped
    /// run in stretches of at most ``mappedStretchCount`` records whose pages are let go once
    /// `body` returns — so that going once through records held as mappings (the duplicate
    /// check over the kept records, a copy) keeps only a stretch of them resident. Stops early
    /// when `body` returns `false`; returns whether it went through all of them.
    @discardableResult
    public func forEachStretch<E: Error>(_ body: (_ records: UnsafeBufferPointer<ListRecord>, _ shift: Int) throws(E) -> Bool) throws(E) -> Bool {
        for run in runs {
            guard run.storage.mappedRegion != nil else {
                guard try run.withUnsafeStorageRecords({ records throws(E) in try body(records, run.shift) }) else { return false }
                continue
            }
            var lower = run.range.lowerBound
            while lower < run.range.upperBound {
                let upper = Swift.min(run.range.upperBound, lower + Self.mappedStretchCount)
                let goOn = try run.storage.withUnsafeBufferPointer { buffer throws(E) in
                    try body(UnsafeBufferPointer(rebasing: buffer[lower..<upper]), run.shift)
                }
                run.storage.releasePages(in: lower..<upper)
                guard goOn else { return false }
                lower = upper
            }
        }
        return true
    }

    /// Lets the pages of the mapped runs that hold records `range` go from the resident set (an
    /// array's run is left as it is; the records stay the same, read back from the page cache
    /// when touched again). For a reader that goes through the records by index a part at a
    /// time — a snapshot's chunks — and lets go of what it went through, as iteration does.
    public func releaseMappedPages(in range: Range<Int>) {
        guard !range.isEmpty, holdsMappings else { return }
        var index = runIndex(containing: range.lowerBound)
        while index < runs.count, start(ofRun: index) < range.upperBound {
            let run = runs[index]
            let lower = Swift.max(range.lowerBound - start(ofRun: index), 0)
            let upper = Swift.min(range.upperBound - start(ofRun: index), run.range.count)
            run.storage.releasePages(in: (run.range.lowerBound + lower)..<(run.range.lowerBound + upper))
            index += 1
        }
    }

    /// Lets every page of each mapped storage the runs hold go from the resident set — the
    /// whole mapping, beyond the runs' ranges: records of the same file that an earlier version
    /// held there and that a diff read (the records a change replaced) go too. For the daemon
    /// once a version is published: what its read and its diff touched by index is let go of.
    public func releaseAllMappedPages() {
        guard holdsMappings else { return }
        var released = Set<UInt>()
        for run in runs {
            guard let region = run.storage.mappedRegion, released.insert(run.storageAddress).inserted else { continue }
            region.releasePages()
        }
    }
}

