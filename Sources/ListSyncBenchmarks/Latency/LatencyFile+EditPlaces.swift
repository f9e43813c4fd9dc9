import ArgumentParser

extension LatencyFile {
    /// Where the one-row edits of a workload fall in the file: which row edit `n` changes.
    ///
    /// Where they fall decides what of a version held as mappings of the daemon's state files is
    /// touched: edits moving forward through one stretch touch the pages around it again and
    /// again, edits spread over the file touch new pages at every edit (issue 19's memory goal
    /// held for the first and not the second before session 15's last change, found with a probe).
    enum EditPlaces: String, CaseIterable, ExpressibleByArgument {
        /// Row `n × 7919 mod rows`: the benchmark's edits as they always were. Of a 1M-row file,
        /// 32 edits change rows moving forward through its first quarter.
        case forward
        /// Row `n × s mod rows`, with `s` the integer nearest `rows × (√5 − 1) / 2` that is
        /// co-prime with `rows` (``spreadStride(rows:)``: 618,033 for 1M rows). The golden
        /// ratio's stride puts each edit in the largest stretch the ones before left untouched,
        /// whatever the number of edits and rows: from 5 edits on, every quarter of the file has
        /// one, and the edits jump back and forth over the whole file. Co-prime with `rows`, no
        /// row is edited twice before every row was.
        case spread

        /// The name in labels: `forward places`, `spread places`.
        var label: String { "\(self.rawValue) places" }

        /// The row that edit `number` (from 0) of a `rows`-row file changes, in `0..<rows`.
        func row(ofEdit number: Int, rows: Int) -> Int {
            precondition(number >= 0 && rows > 0, "edit \(number) of \(rows) rows")
            let stride = self == .forward ? 7919 : Self.spreadStride(rows: rows)
            // Both factors below `rows`: the product fits in an Int for any file that fits in memory.
            return (number % rows) * (stride % rows) % rows
        }

        /// The stride of ``spread`` for a `rows`-row file: the integer nearest `rows × 0.618…`,
        /// or the nearest one to it that is co-prime with `rows` (0 for a file of one row).
        static func spreadStride(rows: Int) -> Int {
            guard rows > 1 else { return 0 }
            let ideal = Int((Double(rows) * 0.618_033_988_749_894_9).rounded())
            // 1 is co-prime with every count: the search ends by `ideal - 1` steps at most.
            for distance in 0..<rows {
                for candidate in [ideal - distance, ideal + distance] where candidate >= 1 && candidate < rows {
                    if Self.greatestCommonDivisor(candidate, rows) == 1 { return candidate }
                }
            }
            return 1
        }

        private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
            var (a, b) = (a, b)
            while b != 0 { (a, b) = (b, a % b) }
            return a
        }
    }
}
