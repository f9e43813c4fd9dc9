/// A stage of a changeset that can't be applied as one batch update: the
/// check that turns UIKit's "Invalid update" crash into an error.
public struct BatchUpdateViolation: Error, Hashable, Sendable {
    /// The offset of the offending stage in its ``StagedChangeset``.
    public var stage: Int

    /// What is wrong.
    public var kind: Kind

    /// Creates a violation.
    public init(stage: Int, kind: Kind) {
        self.stage = stage
        self.kind = kind
    }

    /// The operations a stage can hold, as they are named in messages.
    public enum Operation: String, Hashable, Sendable {
        case delete
        case insert
        case update
        case moveFrom = "move from"
        case moveTo = "move to"
    }

    /// The rules of a batch update.
    public enum Kind: Hashable, Sendable {
        /// A section index outside the state it names: before the stage for
        /// deletions, updates and move sources, after it for the rest.
        case sectionOutOfRange(Operation, section: Int, count: Int)
        /// An element path outside the state it names.
        case elementOutOfRange(Operation, path: ElementPath, count: Int)
        /// A section named by more than one operation on the same side.
        case sectionUsedTwice(Operation, section: Int)
        /// An element named by more than one operation on the same side.
        case elementUsedTwice(Operation, path: ElementPath)
        /// An element operation inside a section deleted by the same stage.
        case elementInDeletedSection(Operation, path: ElementPath)
        /// An element operation inside a section inserted by the same stage.
        case elementInInsertedSection(Operation, path: ElementPath)
        /// The stage's data has `actual` sections where the operations leave `expected`.
        case sectionCountMismatch(expected: Int, actual: Int)
        /// Section `section` of the stage's data has `actual` elements where
        /// the operations leave `expected`.
        case elementCountMismatch(section: Int, expected: Int, actual: Int)
        /// The section at `section` of the stage's data is not the one the
        /// operations put there: untouched sections must keep their order.
        case sectionMismatch(section: Int)
        /// The element at `path` of the stage's data is not the one the
        /// operations put there: untouched elements must keep their order.
        case elementMismatch(path: ElementPath)
    }
}

extension BatchUpdateViolation: CustomStringConvertible {
    public var description: String {
        "stage \(stage): \(reason)"
    }

    /// What is wrong, without the stage's number: for messages that name the stage their own way
    /// (a mirror names the changeset too).
    package var reason: String {
        let message: String
        switch kind {
        case .sectionOutOfRange(let operation, let section, let count):
            let side = operation.namesStateAfter ? "after" : "before"
            message = "attempt to \(operation.rawValue) section \(section), but there are only \(count) sections \(side) the update"
        case .elementOutOfRange(let operation, let path, let count):
            let side = operation.namesStateAfter ? "after" : "before"
            message = "attempt to \(operation.rawValue) element \(path.element) \(operation.preposition) section \(path.section), "
                + "but there are only \(count) elements in section \(path.section) \(side) the update"
        case .sectionUsedTwice(let operation, let section):
            message = "section \(section) is named twice (\(operation.rawValue)) on the same side of the update"
        case .elementUsedTwice(let operation, let path):
            message = "element \(path.element) of section \(path.section) is named twice (\(operation.rawValue)) on the same side of the update"
        case .elementInDeletedSection(let operation, let path):
            message = "attempt to \(operation.rawValue) element \(path.element) of section \(path.section), which the same update deletes"
        case .elementInInsertedSection(let operation, let path):
            message = "attempt to \(operation.rawValue) element \(path.element) \(operation.preposition) section \(path.section), which the same update inserts"
        case .sectionCountMismatch(let expected, let actual):
            message = "invalid number of sections: the data after the update has \(actual), "
                + "but the sections before it, less deletions, plus insertions, make \(expected)"
        case .elementCountMismatch(let section, let expected, let actual):
            message = "invalid number of elements in section \(section): the data after the update has \(actual), "
                + "but the elements before it, less deletions and moves out, plus insertions and moves in, make \(expected)"
        case .sectionMismatch(let section):
            message = "section \(section) after the update is not the section the operations put there"
        case .elementMismatch(let path):
            message = "element \(path.element) of section \(path.section) after the update is not the element the operations put there"
        }
        return message
    }
}

extension BatchUpdateViolation.Operation {
    /// Whether the operation names an index in the state after the stage.
    var namesStateAfter: Bool {
        self == .insert || self == .moveTo
    }

    var preposition: String {
        namesStateAfter ? "into" : "from"
    }
}
