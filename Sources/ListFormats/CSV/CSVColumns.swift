/// The roles the options give to the columns of a CSV header.
struct CSVColumns {
    /// The header's column names.
    let header: [String]
    /// The key columns, in key order.
    let key: [Int]
    /// The `section_by` column.
    let section: Int?
    /// Which columns are ignored: left out of the content and of the published list.
    let ignored: [Bool]
    /// Whether any column is ignored.
    let hasIgnored: Bool
    /// The columns that are published: the header without the ignored ones.
    let published: ListSchema
    /// The seed of every record's content hash (``ListSchema/headerSeed`` of `published`).
    let headerSeed: UInt64
    /// The field names as the user wrote them, for messages: key, then section.
    let keyNames: [String]
    let sectionName: String?

    init(header: [String], options: ReadOptions, headerPosition: () -> SourcePosition) throws(ListFormatError) {
        func column(_ spelling: String) throws(ListFormatError) -> Int {
            guard let column = try FieldPath(parsing: spelling).column(in: header) else {
                throw .unknownColumn(spelling, at: headerPosition())
            }
            return column
        }
        self.header = header
        var key: [Int] = []
        for name in options.key { key.append(try column(name)) }
        self.key = key
        self.keyNames = options.key
        self.sectionName = options.sectionBy
        self.section = try options.sectionBy.map { name throws(ListFormatError) in try column(name) }
        var ignored = Array(repeating: false, count: header.count)
        for name in options.ignore { ignored[try column(name)] = true }
        self.ignored = ignored
        self.hasIgnored = ignored.contains(true)
        self.published = ListSchema(columns: zip(header, ignored).filter { !$0.1 }.map(\.0))
        self.headerSeed = self.published.headerSeed
    }

    /// The number of columns.
    var count: Int { header.count }

    /// How records are decoded.
    func layout(delimiter: UInt8) -> CSVLayout {
        CSVLayout(delimiter: delimiter, header: header, key: key, ignored: ignored, headerSeed: headerSeed)
    }
}
