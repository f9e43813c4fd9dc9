import ListDiff
import PropertyBased

/// An element whose identity and content are separate: same `id`, other
/// `content` is an update. Small id ranges make duplicates common.
struct Item: Differentiable, Hashable, Sendable, CustomStringConvertible {
    var id: Int
    var content: Int

    var differenceIdentifier: Int { id }

    func isContentEqual(to source: Item) -> Bool {
        content == source.content
    }

    var description: String { "\(id)·\(content)" }
}

/// A section model with the same split of identity and content.
typealias Model = Item

typealias Section = ArraySection<Model, Item>

/// One step of an edit script that turns a generated source into a target.
/// The numbers are reduced modulo the sizes of the list being edited, so any
/// script applies to any list.
struct Edit: Sendable, CustomStringConvertible {
    var kind: Int
    var a: Int
    var b: Int
    var id: Int
    var content: Int

    var description: String { "(\(kind) \(a) \(b) \(id)·\(content))" }
}

enum Generators {
    static let item = zip(Gen.int(in: 0...9), Gen.int(in: 0...2)).map { Item(id: $0, content: $1) }

    static let edits = zip(Gen.int(in: 0...9), Gen.int(in: 0...40), Gen.int(in: 0...40), Gen.int(in: 0...12), Gen.int(in: 0...2))
        .map { Edit(kind: $0, a: $1, b: $2, id: $3, content: $4) }
        .array(of: 0...12)

    /// A linear source and the script that makes its target.
    static let linear = zip(item.array(of: 0...14), edits)

    static let section = zip(Gen.int(in: 0...6), Gen.int(in: 0...1), item.array(of: 0...6))
        .map { Section(model: Model(id: $0, content: $1), elements: $2) }

    /// A sectioned source and the script that makes its target.
    static let sectioned = zip(section.array(of: 0...6), edits)
}

extension Array where Element == Item {
    /// `self` edited by `script`: deletions, insertions, moves, content changes.
    func edited(by script: [Edit]) -> [Item] {
        var list = self
        for edit in script {
            switch edit.kind % 5 {
            case 0 where !list.isEmpty:
                list.remove(at: edit.a % list.count)
            case 1:
                list.insert(Item(id: edit.id, content: edit.content), at: edit.a % (list.count + 1))
            case 2 where !list.isEmpty:
                let element = list.remove(at: edit.a % list.count)
                list.insert(element, at: edit.b % (list.count + 1))
            case 3 where !list.isEmpty:
                list[edit.a % list.count].content = edit.content
            case 4 where list.count > 1:
                list.swapAt(edit.a % list.count, edit.b % list.count)
            default:
                break
            }
        }
        return list
    }
}

extension Array where Element == Section {
    /// `self` edited by `script`: section deletions, insertions, moves and
    /// model changes; element deletions, insertions, moves within and across
    /// sections, and content changes.
    func edited(by script: [Edit]) -> [Section] {
        var sections = self
        for edit in script {
            let nonEmpty = sections.indices.filter { !sections[$0].elements.isEmpty }
            switch edit.kind {
            case 0 where !sections.isEmpty:
                sections.remove(at: edit.a % sections.count)
            case 1:
                let elements = (0..<(edit.b % 3)).map { Item(id: (edit.id + $0) % 13, content: edit.content) }
                sections.insert(Section(model: Model(id: edit.id % 8, content: edit.content % 2), elements: elements), at: edit.a % (sections.count + 1))
            case 2 where !sections.isEmpty:
                let section = sections.remove(at: edit.a % sections.count)
                sections.insert(section, at: edit.b % (sections.count + 1))
            case 3 where !sections.isEmpty:
                sections[edit.a % sections.count].model.content = edit.content % 2
            case 4 where !nonEmpty.isEmpty:
                let from = nonEmpty[edit.a % nonEmpty.count]
                let element = sections[from].elements.remove(at: edit.b % sections[from].elements.count)
                let to = edit.id % sections.count
                sections[to].elements.insert(element, at: edit.content % (sections[to].elements.count + 1))
            case 5 where !sections.isEmpty, 6 where !sections.isEmpty:
                let section = edit.a % sections.count
                sections[section].elements = sections[section].elements.edited(by: [Edit(kind: edit.kind == 5 ? 1 : 0, a: edit.b, b: edit.a, id: edit.id, content: edit.content)])
            case 7 where !sections.isEmpty, 8 where !sections.isEmpty:
                let section = edit.a % sections.count
                sections[section].elements = sections[section].elements.edited(by: [Edit(kind: edit.kind == 7 ? 2 : 3, a: edit.b, b: edit.id, id: edit.id, content: edit.content)])
            default:
                break
            }
        }
        return sections
    }
}
