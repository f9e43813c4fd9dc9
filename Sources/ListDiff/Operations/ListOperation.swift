/// One change to a linear list, at indices valid at the moment it is made:
/// apply a list of them in order, one at a time, like Android's
/// `ListUpdateCallback`.
public enum ListOperation<Element> {
    /// Remove the element at `index`.
    case delete(at: Int)
    /// Insert `element` at `index`.
    case insert(Element, at: Int)
    /// Remove the element at `from` and insert it at `to` (an index in the
    /// list once it is removed, as with `remove(at:)` then `insert(_:at:)`).
    case move(from: Int, to: Int)
    /// Replace the element at `index` with `element`, the same element with new content.
    case update(Element, at: Int)
}

extension ListOperation: Equatable where Element: Equatable {}
extension ListOperation: Sendable where Element: Sendable {}

extension RangeReplaceableCollection where Self: MutableCollection {
    /// Makes one change. O(*n*).
    public mutating func apply(_ operation: ListOperation<Element>) {
        func position(_ offset: Int) -> Index {
            index(startIndex, offsetBy: offset)
        }
        switch operation {
        case .delete(let offset):
            remove(at: position(offset))
        case .insert(let element, let offset):
            insert(element, at: position(offset))
        case .move(let from, let to):
            let element = remove(at: position(from))
            insert(element, at: position(to))
        case .update(let element, let offset):
            self[position(offset)] = element
        }
    }
}
