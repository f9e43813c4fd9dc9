/// The known key a misspelt configuration key most likely meant, for "did you mean" hints.
///
/// Distances are optimal string alignment distances (insertions, deletions, substitutions and
/// swaps of two neighbours each cost 1), compared without regard to case and with `-` read as
/// `_`, so `keys`, `Key`, `section-by` and `fromat` all find their key.
enum KeySuggestion {
    /// The known key closest to `unknown`, when it is close enough to be a typo: at most one edit
    /// for keys of up to four characters, two up to eight, three beyond. Ties go to the key that
    /// sorts first, so the hint is stable.
    ///
    /// - Complexity: O(*k* · *n* · *m*) for *k* known keys of length *m* and `unknown` of length *n*.
    static func closest(to unknown: String, among known: Set<String>) -> String? {
        let typed = Self.normalized(unknown)
        let tolerance = typed.count <= 4 ? 1 : typed.count <= 8 ? 2 : 3
        let scored = known.map { (key: $0, distance: Self.distance(typed, Self.normalized($0))) }
        return scored.filter { $0.distance <= tolerance }.min { ($0.distance, $0.key) < ($1.distance, $1.key) }?.key
    }

    private static func normalized(_ key: String) -> [Unicode.Scalar] {
        key.lowercased().unicodeScalars.map { $0 == "-" ? "_" : $0 }
    }

    /// The optimal string alignment distance between `a` and `b`.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        // Three rows of the dynamic-programming table: two back (for swaps), previous, current.
        var twoBack = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], twoBack[j - 2] + 1)
                }
            }
            (twoBack, previous, current) = (previous, current, twoBack)
        }
        return previous[b.count]
    }
}
