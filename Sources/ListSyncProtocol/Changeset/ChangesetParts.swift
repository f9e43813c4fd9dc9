/// Cuts an encoded `changeset` line into the numbered parts of protocol version 2 (*Changeset
/// parts*, docs/PROTOCOL.md), so that no line exceeds ``targetSize`` but for one record larger
/// than it.
///
/// It works on the line's bytes, as the daemon stores and sends them, without decoding a value:
/// each part is a run of the line's own bytes (whole stage entries, and for `section_inserted`
/// whole records under the section's repeated header) with the part's header and closing
/// brackets around them. So the daemon splits the lines of its history, live or read back from
/// disk, the same way, and ``ChangesetPartAssembly`` puts the decoded parts back into the
/// changeset the whole line encodes.
public enum ChangesetParts {
    /// The size at which a part is closed: after the entry or record that brings it to this many
    /// bytes (the snapshot chunk target, 256 KiB).
    public static let targetSize = 256 << 10

    /// The parts of `line` (a `changeset` line, with or without its `\n`), each ended as `line`
    /// is; `nil` when the line is not over `targetSize`, has fewer than two units to cut between,
    /// or is not laid out as ``ServerMessage/encodedChangeset(watch:cursor:digest:v1Digest:schema:stagesJSON:)``
    /// writes it (then it is sent whole).
    ///
    /// - Complexity: O(*n*) in the length of the line.
    public static func split(_ line: some Collection<UInt8>, targetSize: Int = Self.targetSize) -> [[UInt8]]? {
        let bytes = Array(line)
        return bytes.withUnsafeBufferPointer { line in
            guard var cutter = Cutter(line, targetSize: targetSize) else { return nil }
            var parts: [[UInt8]] = []
            while let part = cutter.nextPart(of: line) { parts.append(part) }
            return parts
        }
    }

    /// One piece a part boundary may follow: an entry of a stage member's array, or one record of
    /// a `section_inserted` entry.
    struct Unit {
        /// The stage it belongs to (its index in `stages`).
        var stage: Int
        /// The member's name with its quotes and colon, `"element_inserted":`.
        var member: Range<Int>
        /// The entry's bytes, or for a record of an inserted section the record's.
        var bytes: Range<Int>
        /// For a record of an inserted section: the section entry's bytes up to and including
        /// `"records":[`, which a part that continues the section repeats; and where the entry starts.
        var section: Range<Int>?
    }

    /// Where a changeset line's pieces are, found by reading its units once to its end.
    struct Layout {
        /// `{"type":"changeset",…,"prev_seq":N`: everything before `,"stages":`.
        var head: Range<Int>
        /// After the `stages` array: `,"digest":…` to the closing `}`.
        var tail: Range<Int>
        /// How many units the stages have.
        var unitCount = 0

        init?(_ line: UnsafeBufferPointer<UInt8>, end: Int) {
            guard var units = Units(line, end: end) else { return nil }
            self.head = 0..<units.head
            while true {
                switch units.next(in: line) {
                case .unit: self.unitCount += 1
                case .end(let tail):
                    self.tail = tail
                    return
                case .malformed: return nil
                }
            }
        }
    }

    /// Reads a changeset line's units one after the other, as they come (the line's layout is
    /// one nesting of arrays and objects: stages, their members, their entries, and the records
    /// of an inserted section's entry).
    struct Units {
        /// Where the reading is in the line's bytes, which each call is handed.
        private var position: Int
        private let end: Int
        /// Where `,"stages":[` starts.
        let head: Int
        private var stage = 0
        private var place = Place.stagesOpened

        /// Where the reading is.
        private enum Place {
            /// After `[`: a stage or `]` next.
            case stagesOpened
            /// A stage's object next.
            case stage
            /// A member's name next, in the stage's object.
            case member
            /// An entry of `member`'s array next.
            case entry(member: Range<Int>, inserted: Bool)
            /// A record of the inserted section whose entry starts with `header` next.
            case record(member: Range<Int>, header: Range<Int>)
            /// After an entry: `,` or the member's `]` next.
            case afterEntry(member: Range<Int>, inserted: Bool)
            /// After a member's array: `,` or the stage's `}` next.
            case afterMember
            /// After a stage: `,` or the stages' `]` next.
            case afterStage
            case ended
        }

        /// What ``next()`` read.
        enum Next {
            case unit(Unit)
            /// No unit is left; the line's tail.
            case end(tail: Range<Int>)
            /// The line is not laid out as the daemon writes it.
            case malformed
        }

        init?(_ line: UnsafeBufferPointer<UInt8>, end: Int) {
            let marker = Array(#","stages":["#.utf8)
            guard let start = Self.firstIndex(of: marker, in: line, end: end) else { return nil }
            self.head = start
            self.end = end
            self.position = start + marker.count
        }

        /// The next unit of `line`, the bytes given to ``init(_:end:)``.
        mutating func next(in line: UnsafeBufferPointer<UInt8>) -> Next {
            var scanner = CompactJSONSkipper(bytes: UnsafeBufferPointer(rebasing: line[..<self.end]), position: self.position)
            defer { self.position = scanner.position }
            while true {
                switch self.place {
                case .stagesOpened:
                    if scanner.take(UInt8(ascii: "]")) { return self.ending(scanner) }
                    self.place = .stage
                case .stage:
                    guard scanner.take(UInt8(ascii: "{")) else { return .malformed }
                    self.place = .member
                case .member:
                    let nameStart = scanner.position
                    guard scanner.skipString(), scanner.take(UInt8(ascii: ":")) else { return .malformed }
                    let member = nameStart..<scanner.position
                    let inserted = scanner.bytes[member].elementsEqual(#""section_inserted":"#.utf8)
                    guard scanner.take(UInt8(ascii: "[")) else { return .malformed }
                    self.place = scanner.take(UInt8(ascii: "]")) ? .afterMember : .entry(member: member, inserted: inserted)
                case .entry(let member, let inserted):
                    let entryStart = scanner.position
                    guard inserted else {
                        guard scanner.skipValue() else { return .malformed }
                        self.place = .afterEntry(member: member, inserted: false)
                        return .unit(Unit(stage: self.stage, member: member, bytes: entryStart..<scanner.position))
                    }
                    // `{"index":…,"model":…,"hash":…,"records":[…]}`: one unit per record, or the
                    // whole entry when it has none.
                    let recordsMarker = Array(#""records":["#.utf8)
                    guard scanner.take(UInt8(ascii: "{")) else { return .malformed }
                    // The members before `records` (index, model, hash), as the encoder writes them.
                    while !scanner.upcoming(recordsMarker) {
                        guard scanner.skipString(), scanner.take(UInt8(ascii: ":")), scanner.skipValue(),
                            scanner.take(UInt8(ascii: ","))
                        else { return .malformed }
                    }
                    scanner.position += recordsMarker.count
                    guard scanner.take(UInt8(ascii: "]")) else {
                        self.place = .record(member: member, header: entryStart..<scanner.position)
                        continue
                    }
                    guard scanner.take(UInt8(ascii: "}")) else { return .malformed }
                    self.place = .afterEntry(member: member, inserted: true)
                    return .unit(Unit(stage: self.stage, member: member, bytes: entryStart..<scanner.position))
                case .record(let member, let header):
                    let recordStart = scanner.position
                    guard scanner.skipValue() else { return .malformed }
                    let unit = Unit(stage: self.stage, member: member, bytes: recordStart..<scanner.position, section: header)
                    if !scanner.take(UInt8(ascii: ",")) {
                        guard scanner.take(UInt8(ascii: "]")), scanner.take(UInt8(ascii: "}")) else { return .malformed }
                        self.place = .afterEntry(member: member, inserted: true)
                    }
                    return .unit(unit)
                case .afterEntry(let member, let inserted):
                    if scanner.take(UInt8(ascii: ",")) {
                        self.place = .entry(member: member, inserted: inserted)
                    } else {
                        guard scanner.take(UInt8(ascii: "]")) else { return .malformed }
                        self.place = .afterMember
                    }
                case .afterMember:
                    if !scanner.take(UInt8(ascii: ",")) {
                        guard scanner.take(UInt8(ascii: "}")) else { return .malformed }
                        self.stage += 1
                        self.place = .afterStage
                    } else {
                        self.place = .member
                    }
                case .afterStage:
                    if scanner.take(UInt8(ascii: ",")) {
                        self.place = .stage
                    } else {
                        guard scanner.take(UInt8(ascii: "]")) else { return .malformed }
                        return self.ending(scanner)
                    }
                case .ended:
                    return self.ending(scanner)
                }
            }
        }

        /// After the stages' `]`: the tail, when the line ends as a changeset line does.
        private mutating func ending(_ scanner: CompactJSONSkipper) -> Next {
            self.place = .ended
            guard self.end > 0, scanner.bytes[self.end - 1] == UInt8(ascii: "}"), scanner.position < self.end else { return .malformed }
            return .end(tail: scanner.position..<self.end)
        }

        private static func firstIndex(of marker: [UInt8], in line: UnsafeBufferPointer<UInt8>, end: Int) -> Int? {
            var index = 0
            while index + marker.count <= end {
                if line[index] == marker[0], line[index..<(index + marker.count)].elementsEqual(marker) { return index }
                index += 1
            }
            return nil
        }
    }

    /// Cuts the parts of one changeset line one at a time, each when it is asked for: what is
    /// held beside the line is the part being cut, not all of them (a change of every row of a
    /// large list makes a line of tens of MiB, issue 19). The line's bytes are handed to every
    /// call, the same bytes each time, so that they may stay where they are (the daemon's
    /// history buffer).
    public struct Cutter {
        private let layout: Layout
        private var units: Units
        private let targetSize: Int
        private let newline: Bool
        private var partNumber = 0
        private var unitsLeft: Int
        /// The last unit of the part before, for whether the next one continues its stage.
        private var lastOfPrevious: Unit?
        /// The first part, cut to learn that there is more than one.
        private var first: [UInt8]?

        /// A cutter of `line` (a `changeset` line, with or without its `\n`); `nil` when it goes
        /// whole (as ``ChangesetParts/split(_:targetSize:)`` says). Reads the line once, and cuts
        /// its first part. O(*n*) in the length of the line.
        public init?(_ line: UnsafeBufferPointer<UInt8>, targetSize: Int = ChangesetParts.targetSize) {
            let newline = line.last == UInt8(ascii: "\n")
            let end = newline ? line.count - 1 : line.count
            guard end > targetSize, let layout = Layout(line, end: end), layout.unitCount > 1, let units = Units(line, end: end) else { return nil }
            self.layout = layout
            self.units = units
            self.targetSize = targetSize
            self.newline = newline
            self.unitsLeft = layout.unitCount
            self.first = self.cut(line)
            guard self.unitsLeft > 0 else { return nil }
        }

        /// The bytes of the first part, cut by ``init(_:targetSize:)`` and held until it is asked
        /// for; 0 once it was.
        public var heldByteCount: Int {
            self.first?.count ?? 0
        }

        /// The next part of `line`, the bytes given to ``init(_:targetSize:)``; `nil` after the last.
        /// O(part length).
        public mutating func nextPart(of line: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
            if let first = self.first {
                self.first = nil
                return first
            }
            return self.unitsLeft > 0 ? self.cut(line) : nil
        }

        /// The units that come next, up to the one that brings the part to the target size; the
        /// last part closed with the line's tail (`digest`, and `schema` if any).
        private mutating func cut(_ line: UnsafeBufferPointer<UInt8>) -> [UInt8] {
            var part = Part(line: line, layout: self.layout)
            var previous: Unit?
            while self.unitsLeft > 0 {
                // (Another line's bytes than the cutter read would end the cutting here.)
                guard case .unit(let unit) = self.units.next(in: line) else {
                    self.unitsLeft = 0
                    break
                }
                self.unitsLeft -= 1
                if previous == nil {
                    part.open(number: self.partNumber, continuing: self.lastOfPrevious.map { $0.stage == unit.stage } ?? false)
                }
                part.append(unit, after: previous)
                previous = unit
                if part.bytes.count + self.layout.tail.count >= self.targetSize { break }
            }
            if let previous { part.close(after: previous, last: self.unitsLeft == 0, newline: self.newline) }
            self.partNumber += 1
            self.lastOfPrevious = previous
            return part.bytes
        }
    }

    /// One part's line as it is built.
    struct Part {
        let line: UnsafeBufferPointer<UInt8>
        let layout: Layout
        var bytes: [UInt8] = []

        init(line: UnsafeBufferPointer<UInt8>, layout: Layout) {
            self.line = line
            self.layout = layout
        }

        /// The line's head, the part's number, and `stages` opened.
        mutating func open(number: Int, continuing: Bool) {
            self.bytes.reserveCapacity(self.layout.head.count + self.layout.tail.count + 64)
            self.bytes += self.line[self.layout.head]
            self.bytes += #","part":\#(number)"#.utf8
            if continuing { self.bytes += #","continues":true"#.utf8 }
            self.bytes += #","stages":["#.utf8
        }

        mutating func append(_ unit: Unit, after previous: Unit?) {
            switch previous {
            case nil:
                self.bytes += #"{"#.utf8
                self.openMember(unit)
            case let previous? where previous.stage != unit.stage:
                self.closeMember(previous)
                self.bytes += #"},{"#.utf8
                self.openMember(unit)
            case let previous? where previous.member != unit.member:
                self.closeMember(previous)
                self.bytes += #","#.utf8
                self.openMember(unit)
            case let previous?:
                if let section = previous.section, section != unit.section {
                    self.bytes += #"]}"#.utf8
                    self.bytes += #","#.utf8
                    self.openEntry(unit)
                } else {
                    self.bytes += #","#.utf8
                    if previous.section == nil { self.openEntry(unit) } else { self.bytes += self.line[unit.bytes] }
                }
            }
        }

        private mutating func openMember(_ unit: Unit) {
            self.bytes += self.line[unit.member]
            self.bytes += #"["#.utf8
            self.openEntry(unit)
        }

        private mutating func openEntry(_ unit: Unit) {
            if let section = unit.section { self.bytes += self.line[section] }
            self.bytes += self.line[unit.bytes]
        }

        private mutating func closeMember(_ unit: Unit) {
            if unit.section != nil { self.bytes += #"]}"#.utf8 }
            self.bytes += #"]"#.utf8
        }

        /// Closes the stages after `previous`, the part's last unit, and the line.
        mutating func close(after previous: Unit, last: Bool, newline: Bool) {
            self.closeMember(previous)
            self.bytes += #"}]"#.utf8
            if last {
                self.bytes += #","last":true"#.utf8
                self.bytes += self.line[self.layout.tail]
            } else {
                self.bytes += #","last":false}"#.utf8
            }
            if newline { self.bytes.append(UInt8(ascii: "\n")) }
        }
    }
}
