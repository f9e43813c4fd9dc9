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
        /// With `section_by`: the sections of the chunk's records in order of first appearance in
        /// the chunk, each with the model its first record there gives it. In a JSON object of
        /// arrays: the members whose names are in the chunk, in order.
        var sections: [Section] = []
        /// In a JSON object of arrays: the number of the region's first record of each member of
        /// ``sections`` (the chunk's records before the first are the previous member's).
        var sectionStarts: [Int] = []
        /// What the chunk starts at.
        var startsAt: Boundary = .record
    }

    /// Where a chunk starts (and the one before it ends): at a record, or, in a JSON object of
    /// arrays, at a member's name. A chunk reads the same wherever it is only when it starts at
    /// the same kind of place.
    enum Boundary: Hashable {
        case record
        case member
    }

    /// A section met in a chunk: the canonical bytes of its value (what makes two sections one)
    /// and its model.
    struct Section {
        var canonical: [UInt8]
        var model: SectionModel
    }

    /// The region's records, in file order.
    var records: [ListRecord] = []
    /// With `section_by`: for each record, the number of its section among its chunk's
    /// ``Extent/sections`` (else empty).
    var sectionOfRecord: [Int32] = []
    /// Its chunks, in file order, one after the other.
    var chunks: [Extent] = []
}
