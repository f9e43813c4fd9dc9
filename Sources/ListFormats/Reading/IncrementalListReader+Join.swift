import DurableFiles

extension IncrementalListReader {
    /// What a spare records array — a retired version's, about to be written into — already
    /// holds of the records being joined, index for index.
    enum SpareContents {
        /// Nothing known.
        case nothing
        /// The first so many records.
        case prefix(Int)
        /// The previous version's records (the spare is the version before it, whose count and
        /// length the previous read kept) but for those in the range, which it read again.
        case previousBut(Range<Int>)
    }

    /// The records of the next version: the kept `prefix`, the `middle` parts read again, then the
    /// kept `suffix` with each record moved by `delta` bytes.
    struct JoinedRecords {
        let prefix: ArraySlice<ListRecord>
        /// The parts read again, in order (the first one may be taken for the list's array).
        private(set) var middle: [[ListRecord]]
        let suffix: ArraySlice<ListRecord>
        let delta: Int
        let count: Int
        /// The records ``join(into:holding:previous:)`` wrote.
        private(set) var writtenCount = 0

        init(prefix: ArraySlice<ListRecord>, middle: [[ListRecord]], suffix: ArraySlice<ListRecord>, movedBy delta: Int) {
            self.prefix = prefix
            self.middle = middle
            self.suffix = suffix
            self.delta = delta
            self.count = prefix.count + middle.reduce(0) { $0 + $1.count } + suffix.count
        }

        /// The records, written with plain copies into `spare`'s storage when nothing else holds
        /// it and it has room (a retired version's records, already resident: written over, not
        /// zeroed again), and there only where it does not hold them already (`holding`; the
        /// records of `previous`, the version read before, fill what the previous read changed);
        /// else, when nothing is kept (a first read), into the first part's own array, when
        /// nothing else holds it and it has room for all (a split read sizes it for the whole
        /// region): the other parts appended, the first part's records not copied at all, and no
        /// second records array alive at once (issue 19: the peak of a load);
        /// else into a new array with a little room to grow
        /// (``RecycledArray/recyclableCapacity(for:)``).
        ///
        /// - Complexity: O(*n*) into new memory; into a spare array, O(changed records) when the
        ///   last two reads kept the count and the length (a record edited in place), or from the
        ///   first record either read again on (an append: the new rows); into the first part's
        ///   array, O(records of the other parts).
        mutating func join(into spare: consuming [ListRecord], holding: SpareContents, previous: [ListRecord]) -> [ListRecord] {
            var records = consume spare
            let count = count
            let spareFits = RecycledArray.isUniquelyReferenced(&records) && records.capacity >= count
            if !spareFits, let joined = joinIntoFirstPart() {
                return joined
            }
            guard count > 0, spareFits,
                let any = prefix.first ?? suffix.first ?? middle.first(where: { !$0.isEmpty })?.first
            else {
                records = []
                writtenCount = count
                return [ListRecord](unsafeUninitializedCapacity: RecycledArray.recyclableCapacity(for: count)) { buffer, initialized in
                    guard let base = buffer.baseAddress else { return }
                    HugePages.advise(base, byteCount: count * MemoryLayout<ListRecord>.stride)
                    write(to: base, from: 0)
                    initialized = count
                }
            }
            // The count first (any record stands in for those it grows by, all written over next).
            if records.count > count {
                records.removeLast(records.count - count)
            } else if records.count < count {
                records.append(contentsOf: repeatElement(any, count: count - records.count))
            }
            writtenCount = records.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                switch holding {
                case .nothing:
                    return write(to: base, from: 0)
                case .prefix(let first):
                    return write(to: base, from: min(first, prefix.count))
                case .previousBut(let changed):
                    return write(to: base, over: previous, but: changed)
                }
            }
            return records
        }

        /// The records in the first part's array, the other parts appended to it, when the list
        /// is the parts alone and that array is nobody else's and has room for all; else nil
        /// (nothing changed).
        private mutating func joinIntoFirstPart() -> [ListRecord]? {
            guard prefix.isEmpty, suffix.isEmpty, !middle.isEmpty, middle[0].capacity >= count else { return nil }
            var records: [ListRecord] = []
            swap(&records, &middle[0])
            guard RecycledArray.isUniquelyReferenced(&records) else {
                swap(&records, &middle[0])
                return nil
            }
            writtenCount = count - records.count
            for part in middle.dropFirst() { records.append(contentsOf: part) }
            middle = []
            return records
        }

        /// Writes the records from the `first` on to `base + first` on (`first` at most the
        /// prefix's count): memory that is uninitialised or holds records (plain bytes, nothing to
        /// release). Returns how many it wrote.
        @discardableResult
        private func write(to base: UnsafeMutablePointer<ListRecord>, from first: Int) -> Int {
            var next = base + first
            prefix.dropFirst(first).withUnsafeBufferPointer { part in
                guard let source = part.baseAddress else { return }
                next.initialize(from: source, count: part.count)
                next += part.count
            }
            next += writeMiddle(to: base)
            writeSuffix(to: next)
            return count - first
        }

        /// Writes the suffix, moved, to `next` on; returns how many records it holds.
        @discardableResult
        private func writeSuffix(to next: UnsafeMutablePointer<ListRecord>) -> Int {
            suffix.withUnsafeBufferPointer { suffix in
                guard let source = suffix.baseAddress else { return }
                if delta == 0 {
                    next.initialize(from: source, count: suffix.count)
                } else {
                    for index in 0..<suffix.count { (next + index).initialize(to: source[index].moved(by: delta)) }
                }
            }
            return suffix.count
        }

        /// Writes the records to `base` on, which holds `previous`'s records (the version the prefix
        /// and suffix are kept from) but for those in `changed`: there the prefix's, then the middle
        /// parts, then the suffix — only where `previous` read again, when the suffix stays where
        /// it was (no change in count or length), else all of it. Returns how many it wrote.
        private func write(to base: UnsafeMutablePointer<ListRecord>, over previous: [ListRecord], but changed: Range<Int>) -> Int {
            guard changed.lowerBound >= 0, changed.upperBound <= previous.count, prefix.count <= previous.count
            else { return write(to: base, from: 0) }
            var written = 0
            previous.withUnsafeBufferPointer { previous in
                guard let source = previous.baseAddress else { return }
                // The prefix's records among those `previous` read again (they are its own).
                let inPrefix = changed.clamped(to: 0..<prefix.count)
                (base + inPrefix.lowerBound).initialize(from: source + inPrefix.lowerBound, count: inPrefix.count)
                written += inPrefix.count
            }
            written += writeMiddle(to: base)
            let suffixStart = count - suffix.count
            if delta == 0, count == previous.count {
                // The suffix's records are `previous`'s at the same places: only those it read again.
                previous.withUnsafeBufferPointer { previous in
                    guard let source = previous.baseAddress else { return }
                    let inSuffix = changed.clamped(to: suffixStart..<count)
                    (base + inSuffix.lowerBound).initialize(from: source + inSuffix.lowerBound, count: inSuffix.count)
                    written += inSuffix.count
                }
            } else {
                written += writeSuffix(to: base + suffixStart)
            }
            return written
        }

        /// Writes the middle parts after the prefix; returns how many records they hold.
        private func writeMiddle(to base: UnsafeMutablePointer<ListRecord>) -> Int {
            var next = base + prefix.count
            for part in middle {
                part.withUnsafeBufferPointer { part in
                    guard let source = part.baseAddress else { return }
                    next.initialize(from: source, count: part.count)
                    next += part.count
                }
            }
            return next - (base + prefix.count)
        }
    }
}
