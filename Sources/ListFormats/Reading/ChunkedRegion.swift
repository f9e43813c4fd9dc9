/// The records of a region of a file read in chunks, and where each chunk is.
///
/// A chunk starts where a reader can start with nothing but the header behind it (a row, a line,
/// or blank lines before one) and holds the records that start in it; what a reader finds in a
/// chunk (records, blank lines, padded rows, member names) depends only on the chunk's bytes,
/// the header and whether the file ends after it. That is what lets ``IncrementalListReader``
/// keep the chunks whose bytes did not change.
struct ChunkedRegion {
    /// One chunk.
    struct Extent {
        /// The chunk's bytes in the file.
        var start: Int
        var end: Int
        /// The number of records of the region up to the end of this chunk.
        var recordEnd: Int
        var blankLineCount = 0
        var paddedRowCount = 0
        var truncatedRowCount = 0
        /// The member names of the chunk's object records in order of first appearance (JSON).
        var columns: [String] = []
    }

    /// The region's records, in file order.
    var records: [ListRecord] = []
    /// Its chunks, in file order, one after the other.
    var chunks: [Extent] = []
}
