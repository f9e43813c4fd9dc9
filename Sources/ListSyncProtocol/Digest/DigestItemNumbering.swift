/// How the version 2 digest numbers a list's items (``DigestTreeRules``): each section's own item,
/// then one per record, from 0 across sections. The one computation of it, for the digest's tree
/// and for a client that works out which items a changeset touched.
public enum DigestItemNumbering {
    /// The number of each section's own item, and the number of items, for sections with
    /// `recordCounts` records. O(sections).
    public static func sectionStarts<Counts: Collection<Int>>(recordCounts: Counts) -> (starts: [Int], count: Int) {
        var starts: [Int] = []
        starts.reserveCapacity(recordCounts.count)
        var count = 0
        for records in recordCounts {
            starts.append(count)
            count += 1 + records
        }
        return (starts, count)
    }
}
