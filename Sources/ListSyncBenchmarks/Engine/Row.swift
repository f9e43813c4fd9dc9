import Foundation
import ListDiff

extension UUID: Differentiable {}

/// An element with an identity and a content that can change.
struct Row: Differentiable, Hashable {
    var id: UUID
    var content: Int

    var differenceIdentifier: UUID { id }

    func isContentEqual(to source: Row) -> Bool {
        content == source.content
    }
}
