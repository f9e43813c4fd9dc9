/// One change to a sectioned list, at indices valid at the moment it is
/// made: apply a list of them in order, one at a time.
public enum SectionedListOperation<Section, Element> {
    /// Remove the section at `index` with its elements.
    case deleteSection(at: Int)
    /// Insert `section`, with its elements, at `index`.
    case insertSection(Section, at: Int)
    /// Remove the section at `from` and insert it at `to`.
    case moveSection(from: Int, to: Int)
    /// Give the section at `index` the model of `section`; its elements stay.
    case updateSection(Section, at: Int)
    /// Remove the element at `path`.
    case deleteElement(at: ElementPath)
    /// Insert `element` at `path`.
    case insertElement(Element, at: ElementPath)
    /// Remove the element at `from` and insert it at `to` (a path in the list
    /// once it is removed), possibly in another section.
    case moveElement(from: ElementPath, to: ElementPath)
    /// Replace the element at `path` with `element`, the same element with new content.
    case updateElement(Element, at: ElementPath)
}

extension SectionedListOperation: Equatable where Section: Equatable, Element: Equatable {}
extension SectionedListOperation: Sendable where Section: Sendable, Element: Sendable {}

extension Array where Element: DifferentiableSection {
    /// Makes one change. O(*n*).
    public mutating func apply(_ operation: SectionedListOperation<Element, Element.Collection.Element>) {
        func editElements(of section: Int, _ edit: (inout [Element.Collection.Element]) -> Void) {
            var elements = Array<Element.Collection.Element>(self[section].elements)
            edit(&elements)
            self[section] = Element(source: self[section], elements: elements)
        }
        switch operation {
        case .deleteSection(let index):
            remove(at: index)
        case .insertSection(let section, let index):
            insert(section, at: index)
        case .moveSection(let from, let to):
            insert(remove(at: from), at: to)
        case .updateSection(let section, let index):
            self[index] = Element(source: section, elements: self[index].elements)
        case .deleteElement(let path):
            editElements(of: path.section) { $0.remove(at: path.element) }
        case .insertElement(let element, let path):
            editElements(of: path.section) { $0.insert(element, at: path.element) }
        case .moveElement(let from, let to):
            var moving: Element.Collection.Element?
            editElements(of: from.section) { moving = $0.remove(at: from.element) }
            if let moving {
                editElements(of: to.section) { $0.insert(moving, at: to.element) }
            }
        case .updateElement(let element, let path):
            editElements(of: path.section) { $0[path.element] = element }
        }
    }
}
