extension BatchLayout {
    /// The stage as single operations, each at indices valid when it is
    /// made, that lead from the state before the stage to the state after it.
    ///
    /// Order: element deletions (from the last), section deletions (from the
    /// last), section moves, section insertions, element moves, element
    /// insertions, then updates at the elements' and sections' final places.
    /// Exactly one operation per change of the stage. O(*n* + *k* log *n*).
    @inlinable
    func sequentialOperations<SectionValue, Item>(
        values: BatchValues<SectionValue, Item>
    ) -> [SectionedListOperation<SectionValue, Item>] {
        var operations = [SectionedListOperation<SectionValue, Item>]()

        for path in update.elementDeleted.sorted(by: >) {
            operations.append(.deleteElement(at: path))
        }
        for section in update.sectionDeleted.sorted(by: >) {
            operations.append(.deleteSection(at: section))
        }

        // Section moves: one list, whose survivors are the sections not deleted.
        var sectionSurvivorRank = [Int](repeating: -1, count: sectionFates.count)
        var survivingSections = 0
        for section in sectionFates.indices where sectionFates[section] != .deleted {
            sectionSurvivorRank[section] = survivingSections
            survivingSections += 1
        }
        var sectionList = AnchoredMoves.List(survivorCount: survivingSections)
        var sectionDepartures = [AnchoredMoves.Departure]()
        var sectionArrivals = [Int]()
        var anchor = -1
        for (section, source) in sectionSources.enumerated() where source != BatchLayout.inserted {
            if sectionFates[source] == .moved {
                sectionList.arrivals.append((move: sectionDepartures.count, anchor: anchor))
                sectionDepartures.append(AnchoredMoves.Departure(list: 0, survivor: sectionSurvivorRank[source]))
                sectionArrivals.append(section)
            } else {
                anchor = sectionSurvivorRank[source]
            }
        }
        for move in AnchoredMoves.resolve(lists: [sectionList], departures: sectionDepartures) {
            operations.append(.moveSection(from: move.from, to: move.to))
        }
        for section in update.sectionInserted.sorted() {
            operations.append(.insertSection(values.section(section), at: section))
        }

        // Element moves: a list per section after the stage, whose survivors
        // are the elements of the section it comes from that are not deleted.
        let survivorRanks = elementFates.map { fates in
            var rank = 0
            return fates.map { fate -> Int in
                guard fate != .deleted else { return -1 }
                defer { rank += 1 }
                return rank
            }
        }
        var lists = [AnchoredMoves.List]()
        var departures = [AnchoredMoves.Departure]()
        var arrivals = [ElementPath]()
        var landings = [ElementPath]()
        for (section, source) in sectionSources.enumerated() {
            guard source != BatchLayout.inserted else {
                lists.append(AnchoredMoves.List(survivorCount: 0))
                continue
            }
            var list = AnchoredMoves.List(survivorCount: elementFates[source].count { $0 != .deleted })
            var anchor = -1
            var next = 0
            for (element, slot) in slots[section].enumerated() {
                switch slot {
                case BatchLayout.inserted:
                    continue
                case BatchLayout.unassigned:
                    while !elementFates[source][next].staysInPlace { next += 1 }
                    anchor = survivorRanks[source][next]
                    if elementFates[source][next] == .updated {
                        landings.append(ElementPath(element: element, section: section))
                    }
                    next += 1
                default:
                    let origin = update.elementMoved[slot].source
                    list.arrivals.append((move: departures.count, anchor: anchor))
                    departures.append(AnchoredMoves.Departure(
                        list: sectionDestinations[origin.section],
                        survivor: survivorRanks[origin.section][origin.element]
                    ))
                    arrivals.append(ElementPath(element: element, section: section))
                }
            }
            lists.append(list)
        }
        for (move, indices) in AnchoredMoves.resolve(lists: lists, departures: departures).enumerated() {
            operations.append(.moveElement(
                from: ElementPath(element: indices.from, section: departures[move].list),
                to: ElementPath(element: indices.to, section: arrivals[move].section)
            ))
        }
        for path in update.elementInserted.sorted() {
            operations.append(.insertElement(values.item(path), at: path))
        }
        for path in landings {
            operations.append(.updateElement(values.item(path), at: path))
        }
        for section in sectionFates.indices where sectionFates[section] == .updated {
            let destination = sectionDestinations[section]
            operations.append(.updateSection(values.section(destination), at: destination))
        }
        return operations
    }
}
