import Foundation
import ListDiff

extension UUID {
    init<Generator: RandomNumberGenerator>(using generator: inout Generator) {
        var words = (generator.next(), generator.next())
        self = withUnsafeBytes(of: &words) { UUID(uuid: $0.load(as: uuid_t.self)) }
    }
}

/// The workloads of DifferenceKit's README benchmark, made deterministic.
enum EngineWorkload: String, CaseIterable {
    case linear5k = "linear-5k"
    case linear100k = "linear-100k"
    case sectioned100x1000 = "sectioned-100x1000"
    case oneUpdate1M = "one-update-1m"

    var summary: String {
        switch self {
        case .linear5k: "5,000 UUIDs: 1,000 deleted, 1,000 inserted, 200 shuffled"
        case .linear100k: "100,000 UUIDs: 10,000 deleted, 10,000 inserted, 2,000 shuffled"
        case .sectioned100x1000:
            "100 sections × 1,000 rows: 5 sections deleted, 5 inserted, 5 moved, 5 models changed; "
                + "per kept section 50 deleted, 50 inserted, 20 updated, first 10 shuffled; 95 cross-section moves"
        case .oneUpdate1M: "1,000,000 rows, the content of the one in the middle changed (a daemon's typical save)"
        }
    }

    /// A linear workload: `count` UUIDs, then deletions, shuffles and insertions at random places.
    static func linear(count: Int, deleted: Int, inserted: Int, shuffled: Int) -> (source: [UUID], target: [UUID]) {
        var generator = SplitMix64(seed: UInt64(count))
        let source = (0..<count).map { _ in UUID(using: &generator) }
        var target = source
        for index in target.indices.shuffled(using: &generator).prefix(deleted).sorted(by: >) {
            target.remove(at: index)
        }
        for _ in 0..<shuffled {
            let element = target.remove(at: Int.random(in: target.indices, using: &generator))
            target.insert(element, at: Int.random(in: 0...target.count, using: &generator))
        }
        for _ in 0..<inserted {
            target.insert(UUID(using: &generator), at: Int.random(in: 0...target.count, using: &generator))
        }
        return (source, target)
    }

    /// A million rows, one of which changes content.
    static func oneUpdate() -> (source: [Row], target: [Row]) {
        var generator = SplitMix64(seed: 1_000_000)
        let source = (0..<1_000_000).map { _ in Row(id: UUID(using: &generator), content: 0) }
        var target = source
        target[target.count / 2].content += 1
        return (source, target)
    }

    /// The sectioned workload.
    static func sectioned() -> (source: [ArraySection<Row, Row>], target: [ArraySection<Row, Row>]) {
        var generator = SplitMix64(seed: 100_000)
        func rows(_ count: Int) -> [Row] {
            (0..<count).map { _ in Row(id: UUID(using: &generator), content: 0) }
        }
        let source = (0..<100).map { _ in ArraySection(model: Row(id: UUID(using: &generator), content: 0), elements: rows(1000)) }
        var target = source
        for index in target.indices.shuffled(using: &generator).prefix(5).sorted(by: >) {
            target.remove(at: index)
        }
        for section in target.indices {
            var elements = target[section].elements
            for index in elements.indices.shuffled(using: &generator).prefix(50).sorted(by: >) {
                elements.remove(at: index)
            }
            for _ in 0..<50 {
                elements.insert(Row(id: UUID(using: &generator), content: 0), at: Int.random(in: 0...elements.count, using: &generator))
            }
            for index in elements.indices.shuffled(using: &generator).prefix(20) {
                elements[index].content += 1
            }
            elements[0..<10].shuffle(using: &generator)
            target[section].elements = elements
        }
        for _ in 0..<95 {
            let from = Int.random(in: target.indices, using: &generator)
            var to = Int.random(in: target.indices, using: &generator)
            if to == from { to = (to + 1) % target.count }
            let element = target[from].elements.remove(at: Int.random(in: target[from].elements.indices, using: &generator))
            target[to].elements.insert(element, at: Int.random(in: 0...target[to].elements.count, using: &generator))
        }
        for index in target.indices.shuffled(using: &generator).prefix(5) {
            target[index].model.content += 1
        }
        for _ in 0..<5 {
            let section = target.remove(at: Int.random(in: target.indices, using: &generator))
            target.insert(section, at: Int.random(in: 0...target.count, using: &generator))
        }
        for _ in 0..<5 {
            let section = ArraySection(model: Row(id: UUID(using: &generator), content: 0), elements: rows(1000))
            target.insert(section, at: Int.random(in: 0...target.count, using: &generator))
        }
        return (source, target)
    }
}
