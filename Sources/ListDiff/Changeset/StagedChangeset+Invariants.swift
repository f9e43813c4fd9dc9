extension StagedChangeset {
    /// Checks what must hold for the stages ListDiff computes, from a source whose sections hold
    /// `sourceSectionSizes` elements to a target whose sections hold `targetSectionSizes`:
    ///
    /// - no stage is empty, there are at most five, and their kinds (``DiffStage``) come in the
    ///   order they are applied, each holding only the operations of its kind;
    /// - each stage is a valid batch update of the state before it (``BatchUpdate``'s rules:
    ///   every index and path in range, none named twice, sizes that add up);
    /// - the stages lead to sections of the target's sizes (an inserted section comes whole, with
    ///   its elements, as in DifferenceKit), and the last stage's data is the target itself.
    ///
    /// A violation is a bug in the engine, never a problem of the input. Runs in debug builds
    /// only, where every computed changeset is checked (O(operations + sections) per stage);
    /// release builds compile it out, as swift-collections' `_checkInvariants` are.
    @inlinable
    @inline(never)
    func _checkInvariants(sourceSectionSizes: [Int], targetSectionSizes: [Int]) {
        #if DEBUG
        precondition(count <= DiffStage.allCases.count, "\(count) stages, more than the \(DiffStage.allCases.count) kinds")
        var sizes = sourceSectionSizes
        var previousKind: DiffStage?
        for (offset, stage) in enumerated() {
            precondition(stage.hasChanges, "stage \(offset) is empty")
            let kind: DiffStage?
            switch stage.storedData {
            case .deferred(_, let deferredKind):
                precondition(offset < count - 1, "the last stage's data is deferred, not the target")
                kind = deferredKind
            case .value:
                precondition(offset == count - 1, "stage \(offset) holds its data though it is not the last")
                kind = nil
            }
            if let kind {
                if let previousKind {
                    precondition(previousKind.rawValue < kind.rawValue, "stage \(offset) (\(kind)) comes after \(previousKind)")
                }
                previousKind = kind
                Self._checkOperations(of: stage, are: kind, offset: offset)
            }
            let checked: BatchUpdate.Checked
            do {
                checked = try BatchUpdate(stage, stage: offset).check(sectionSizes: sizes)
            } catch {
                preconditionFailure("stage \(offset) is not a valid batch update: \(error)")
            }
            sizes = checked.sectionSources.indices.map { section in
                let source = checked.sectionSources[section]
                guard source != BatchLayout.inserted else {
                    // An inserted section comes whole, with the target's elements (at a target index).
                    precondition(section < targetSectionSizes.count, "stage \(offset) inserts section \(section) the target does not have")
                    return targetSectionSizes[section]
                }
                return sizes[source] - checked.removedCounts[source, default: 0] + checked.addedCounts[section, default: 0]
            }
        }
        precondition(
            sizes == targetSectionSizes,
            "the stages lead to sections of \(sizes) elements, the target's hold \(targetSectionSizes)")
        #endif
    }

    /// Checks that `stage`, the stage at `offset`, holds only the operations of its `kind`.
    @inlinable
    static func _checkOperations(of stage: Changeset<Collection>, are kind: DiffStage, offset: Int) {
        #if DEBUG
        let counts = [
            stage.sectionDeleted.count, stage.sectionInserted.count, stage.sectionUpdated.count, stage.sectionMoved.count,
            stage.elementDeleted.count, stage.elementInserted.count, stage.elementUpdated.count, stage.elementMoved.count,
        ]
        // Which of the eight lists above a stage of each kind may fill.
        let allowed: Set<Int> =
            switch kind {
            case .elementUpdates: [6]
            case .deletions: [0, 4]
            case .sectionInsertionsAndMoves: [1, 3]
            case .elementInsertionsAndMoves: [5, 7]
            case .sectionUpdates: [2]
            }
        for (list, count) in counts.enumerated() where count > 0 {
            precondition(allowed.contains(list), "stage \(offset) (\(kind)) holds operations of another kind: \(stage)")
        }
        #endif
    }
}
