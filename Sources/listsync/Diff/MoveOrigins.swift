/// Where moved sections and records were in the old version.
///
/// A changeset names where a move starts in the state the earlier stages
/// left, which means little to a person reading a diff; the old file's
/// position does. ListDiff pairs equal identifiers first come, first served —
/// the *k*-th occurrence of an identifier in the new version is its *k*-th
/// occurrence in the old one — so the same rule recovers a move's origin.
enum MoveOrigins {
    /// For each position in `targetPositions`, the position in `source` of
    /// the same occurrence of the identifier at that position of `target`;
    /// `nil` when the source has fewer occurrences (never for a move).
    ///
    /// O(*n* + *m*) expected; only the identifiers that moved are kept.
    static func sourcePositions<ID: Hashable, Source: Collection<ID>, Target: RandomAccessCollection<ID>>(
        of targetPositions: [Int], source: Source, target: Target
    ) -> [Int?] where Target.Index == Int {
        guard !targetPositions.isEmpty else { return [] }
        let moved = Set(targetPositions.map { target[$0] })
        let requested = Set(targetPositions)
        var seen: [ID: Int] = [:]
        var ordinalAt: [Int: Int] = [:]
        for (position, identifier) in zip(target.indices, target) where moved.contains(identifier) {
            let ordinal = seen[identifier, default: 0]
            seen[identifier] = ordinal + 1
            if requested.contains(position) { ordinalAt[position] = ordinal }
        }
        var occurrences: [ID: [Int]] = [:]
        for (position, identifier) in source.enumerated() where moved.contains(identifier) {
            occurrences[identifier, default: []].append(position)
        }
        return targetPositions.map { position in
            guard let ordinal = ordinalAt[position], let positions = occurrences[target[position]], ordinal < positions.count
            else { return nil }
            return positions[ordinal]
        }
    }
}
