/// Order keys: the value of a table's `listsync_order` column, so that `ORDER BY` gives the
/// file's order and a record that arrives between two others needs a key of its own only.
///
/// A key is a string of the 62 digits `0-9A-Za-z`, read as the base-62 fraction `0.d₁d₂d₃…`;
/// the digits' byte order is their numeric order, so comparing keys byte by byte (SQLite's
/// `BINARY`, PostgreSQL's `COLLATE "C"`) compares the fractions. No key ends in `0`, so each
/// fraction has one key, and between any two keys there is always another: inserting one record
/// anywhere writes that one row. Keys grow by about one digit per six insertions at the same
/// place; a snapshot starts over with keys of equal, minimal length.
enum OrderKey {
    /// The digits, in ascending order.
    private static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    private static let base = 62

    /// `count` keys in ascending order, strictly between `lower` and `upper` (`nil`: no bound).
    static func keys(_ count: Int, between lower: String?, and upper: String?) -> [String] {
        precondition(count >= 0)
        if lower == nil, upper == nil { return self.spread(count) }
        var keys: [String] = []
        keys.reserveCapacity(count)
        self.fill(count, between: lower.map(self.values) ?? [], and: upper.map(self.values), into: &keys)
        return keys
    }

    /// `count` keys spread evenly over the whole range, all of the same, smallest sufficient
    /// length (trailing zeros dropped): the keys of a snapshot.
    static func spread(_ count: Int) -> [String] {
        var width = 1
        var scale = self.base
        while scale < 2 * (count + 1) {
            width += 1
            scale *= self.base
        }
        // Written in place, digit by digit: a snapshot of a million rows makes a million keys.
        return (0..<count).map { index in
            let number = (index + 1) * scale / (count + 1)
            return String(unsafeUninitializedCapacity: width) { text in
                var rest = number
                var length = 0
                for position in stride(from: width - 1, through: 0, by: -1) {
                    let digit = rest % self.base
                    rest /= self.base
                    if length == 0, digit == 0 { continue }  // A trailing zero.
                    length = max(length, position + 1)
                    text[position] = self.digits[digit]
                }
                return length
            }
        }
    }

    /// Bisection: the middle key first, then each half. One key at either end steps next to
    /// the end instead (``step(after:)``, ``step(before:)``), so that records added again and
    /// again at the top or the bottom lengthen keys by one digit per thirty or more, not per six.
    private static func fill(_ count: Int, between lower: [Int], and upper: [Int]?, into keys: inout [String]) {
        guard count > 0 else { return }
        if count == 1, upper == nil, !lower.isEmpty {
            keys.append(self.text(self.step(after: lower)))
            return
        }
        if count == 1, lower.isEmpty, let upper {
            keys.append(self.text(self.step(before: upper)))
            return
        }
        let middle = self.midpoint(lower, upper)
        let left = (count - 1) / 2
        self.fill(left, between: lower, and: middle, into: &keys)
        keys.append(self.text(middle))
        self.fill(count - 1 - left, between: middle, and: upper, into: &keys)
    }

    /// A key strictly between `lower` (empty: 0) and `upper` (`nil`: 1), as digit values; the
    /// shortest such key near the middle. Neither bound ends in 0, and `lower < upper`.
    static func midpoint(_ lower: [Int], _ upper: [Int]?) -> [Int] {
        if let upper {
            var common = 0
            while common < upper.count, (common < lower.count ? lower[common] : 0) == upper[common] { common += 1 }
            if common > 0 {
                return Array(upper[..<common]) + self.midpoint(Array(lower.dropFirst(common)), Array(upper.dropFirst(common)))
            }
        }
        let low = lower.first ?? 0
        let high = upper?.first ?? self.base
        if high - low > 1 { return [(low + high) / 2] }
        if let upper, upper.count > 1 { return [upper[0]] }
        return [low] + self.midpoint(Array(lower.dropFirst()), nil)
    }

    /// A short key just above `lower` (and below 1).
    private static func step(after lower: [Int]) -> [Int] {
        guard let first = lower.first else { return [self.base / 2] }
        if first + 1 < self.base { return [first + 1] }
        return [first] + self.step(after: Array(lower.dropFirst()))
    }

    /// A short key just below `upper` (and above 0).
    private static func step(before upper: [Int]) -> [Int] {
        let first = upper[0]
        if first > 1 { return [first - 1] }
        if first == 1 { return upper.count > 1 ? [1] : [0, self.base - 1] }
        return [0] + self.step(before: Array(upper.dropFirst()))
    }

    private static func values(_ key: String) -> [Int] {
        key.utf8.map { byte in self.digits.firstIndex(of: byte) ?? 0 }
    }

    private static func text(_ values: [Int]) -> String {
        String(decoding: values.map { self.digits[$0] }, as: UTF8.self)
    }
}
