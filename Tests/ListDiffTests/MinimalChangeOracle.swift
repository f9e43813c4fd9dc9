import ListDiff

/// The number of each kind of change a minimal staged changeset has, worked
/// out independently of the engine: identifiers matched first come, first
/// served with plain arrays, and longest increasing subsequences by the
/// quadratic dynamic program.
struct ChangeCounts: Equatable, CustomStringConvertible {
    var sectionDeleted = 0
    var sectionInserted = 0
    var sectionUpdated = 0
    var sectionMoved = 0
    var elementDeleted = 0
    var elementInserted = 0
    var elementUpdated = 0
    var elementMoved = 0

    var description: String {
        "sections −\(sectionDeleted) +\(sectionInserted) ~\(sectionUpdated) →\(sectionMoved); "
            + "elements −\(elementDeleted) +\(elementInserted) ~\(elementUpdated) →\(elementMoved)"
    }

    /// The counts a staged changeset reports.
    init<C>(_ changeset: StagedChangeset<C>) {
        for stage in changeset {
            sectionDeleted += stage.sectionDeleted.count
            sectionInserted += stage.sectionInserted.count
            sectionUpdated += stage.sectionUpdated.count
            sectionMoved += stage.sectionMoved.count
            elementDeleted += stage.elementDeleted.count
            elementInserted += stage.elementInserted.count
            elementUpdated += stage.elementUpdated.count
            elementMoved += stage.elementMoved.count
        }
    }

    /// The minimal counts from `source` to `target`.
    init(minimalFrom source: [Section], to target: [Section]) {
        let sections = Self.match(source.map(\.model.id), target.map(\.model.id))
        sectionDeleted = sections.source.filter { $0 == nil }.count
        sectionInserted = sections.target.filter { $0 == nil }.count
        sectionUpdated = sections.target.enumerated().filter { t, s in
            s.map { source[$0].model.content != target[t].model.content } ?? false
        }.count
        let keptSections = sections.target.compactMap { $0 }
        sectionMoved = keptSections.count - Self.longestIncreasingSubsequenceLength(keptSections)

        let flatSource = source.enumerated().flatMap { s, section in section.elements.map { (section: s, item: $0) } }
        let flatTarget = target.enumerated().flatMap { t, section in section.elements.map { (section: t, item: $0) } }
        let elements = Self.match(flatSource.map(\.item.id), flatTarget.map(\.item.id))
        // Pairs count only when both sections survive.
        var pairs: [(source: Int, target: Int)] = []
        for (t, s) in elements.target.enumerated() {
            guard let s, sections.source[flatSource[s].section] != nil, sections.target[flatTarget[t].section] != nil else { continue }
            pairs.append((s, t))
        }
        let pairedSources = Set(pairs.map(\.source))
        let pairedTargets = Set(pairs.map(\.target))
        elementDeleted = flatSource.indices.filter { sections.source[flatSource[$0].section] != nil && !pairedSources.contains($0) }.count
        elementInserted = flatTarget.indices.filter { sections.target[flatTarget[$0].section] != nil && !pairedTargets.contains($0) }.count
        elementUpdated = pairs.filter { flatSource[$0.source].item.content != flatTarget[$0.target].item.content }.count
        for t in target.indices {
            guard let s = sections.target[t] else { continue }
            let arriving = pairs.filter { flatTarget[$0.target].section == t }
            let sameSection = arriving.filter { flatSource[$0.source].section == s }.map(\.source)
            elementMoved += arriving.count - Self.longestIncreasingSubsequenceLength(sameSection)
        }
    }

    /// The minimal counts for linear lists.
    init(minimalFrom source: [Item], to target: [Item]) {
        let model = Model(id: 0, content: 0)
        self.init(minimalFrom: [Section(model: model, elements: source)], to: [Section(model: model, elements: target)])
    }

    /// First come, first served matching of identifiers.
    static func match(_ source: [Int], _ target: [Int]) -> (source: [Int?], target: [Int?]) {
        var waiting: [Int: [Int]] = [:]
        for (index, id) in source.enumerated() { waiting[id, default: []].append(index) }
        var sourceMatch = [Int?](repeating: nil, count: source.count)
        var targetMatch = [Int?](repeating: nil, count: target.count)
        for (index, id) in target.enumerated() {
            guard var queue = waiting[id], !queue.isEmpty else { continue }
            let match = queue.removeFirst()
            waiting[id] = queue
            sourceMatch[match] = index
            targetMatch[index] = match
        }
        return (sourceMatch, targetMatch)
    }

    static func longestIncreasingSubsequenceLength(_ values: [Int]) -> Int {
        var lengths = [Int](repeating: 1, count: values.count)
        for i in values.indices {
            for j in 0..<i where values[j] < values[i] {
                lengths[i] = max(lengths[i], lengths[j] + 1)
            }
        }
        return lengths.max() ?? 0
    }
}
