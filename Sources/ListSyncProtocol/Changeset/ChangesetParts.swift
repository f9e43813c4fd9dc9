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
        let newline = bytes.last == UInt8(ascii: "\n")
        let end = newline ? bytes.count - 1 : bytes.count
        guard end > targetSize, let layout = Layout(bytes[..<end]) else { return nil }
        var cutter = Cutter(bytes: bytes, layout: layout, targetSize: targetSize, newline: newline)
        guard layout.units.count > 1 else { return nil }
        for unit in layout.units {
            cutter.append(unit)
        }
        let parts = cutter.finish()
        return parts.count > 1 ? parts : nil
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

    /// Where a changeset line's pieces are.
    struct Layout {
        /// `{"type":"changeset",…,"prev_seq":N`: everything before `,"stages":`.
        var head: Range<Int>
        /// After the `stages` array: `,"digest":…` to the closing `}`.
        var tail: Range<Int>
        var units: [Unit] = []

        init?(_ line: ArraySlice<UInt8>) {
            let marker = Array(#","stages":["#.utf8)
            guard let start = Self.firstIndex(of: marker, in: line) else { return nil }
            self.head = line.startIndex..<start
            var scanner = CompactJSONSkipper(bytes: line, position: start + marker.count - 1)
            guard scanner.take(UInt8(ascii: "[")) else { return nil }
            var stage = 0
            if !scanner.take(UInt8(ascii: "]")) {
                repeat {
                    guard scanner.take(UInt8(ascii: "{")) else { return nil }
                    repeat {
                        let nameStart = scanner.position
                        guard scanner.skipString(), scanner.take(UInt8(ascii: ":")) else { return nil }
                        let member = nameStart..<scanner.position
                        let inserted = line[nameStart..<scanner.position].elementsEqual(#""section_inserted":"#.utf8)
                        guard scanner.take(UInt8(ascii: "[")) else { return nil }
                        if !scanner.take(UInt8(ascii: "]")) {
                            repeat {
                                let entryStart = scanner.position
                                guard inserted else {
                                    guard scanner.skipValue() else { return nil }
                                    self.units.append(Unit(stage: stage, member: member, bytes: entryStart..<scanner.position))
                                    continue
                                }
                                guard let records = Self.insertedSection(&scanner, stage: stage, member: member) else { return nil }
                                self.units += records
                            } while scanner.take(UInt8(ascii: ","))
                            guard scanner.take(UInt8(ascii: "]")) else { return nil }
                        }
                    } while scanner.take(UInt8(ascii: ","))
                    guard scanner.take(UInt8(ascii: "}")) else { return nil }
                    stage += 1
                } while scanner.take(UInt8(ascii: ","))
                guard scanner.take(UInt8(ascii: "]")) else { return nil }
            }
            guard line.last == UInt8(ascii: "}"), scanner.position < line.endIndex else { return nil }
            self.tail = scanner.position..<line.endIndex
        }

        /// The units of one `section_inserted` entry, `{"index":…,"model":…,"hash":…,"records":[…]}`:
        /// one per record, or the whole entry when it has none.
        private static func insertedSection(_ scanner: inout CompactJSONSkipper, stage: Int, member: Range<Int>) -> [Unit]? {
            let entryStart = scanner.position
            let recordsMarker = Array(#""records":["#.utf8)
            guard scanner.take(UInt8(ascii: "{")) else { return nil }
            // The members before `records` (index, model, hash), as the encoder writes them.
            while !scanner.upcoming(recordsMarker) {
                guard scanner.skipString(), scanner.take(UInt8(ascii: ":")), scanner.skipValue(), scanner.take(UInt8(ascii: ",")) else {
                    return nil
                }
            }
            scanner.position += recordsMarker.count
            let header = entryStart..<scanner.position
            var units: [Unit] = []
            if !scanner.take(UInt8(ascii: "]")) {
                repeat {
                    let recordStart = scanner.position
                    guard scanner.skipValue() else { return nil }
                    units.append(Unit(stage: stage, member: member, bytes: recordStart..<scanner.position, section: header))
                } while scanner.take(UInt8(ascii: ","))
                guard scanner.take(UInt8(ascii: "]")) else { return nil }
            }
            guard scanner.take(UInt8(ascii: "}")) else { return nil }
            return units.isEmpty ? [Unit(stage: stage, member: member, bytes: entryStart..<scanner.position)] : units
        }

        private static func firstIndex(of marker: [UInt8], in line: ArraySlice<UInt8>) -> Int? {
            var index = line.startIndex
            while index + marker.count <= line.endIndex {
                if line[index] == marker[0], line[index..<(index + marker.count)].elementsEqual(marker) { return index }
                index += 1
            }
            return nil
        }
    }

    /// Builds the parts unit by unit, closing one after the unit that brings it to the target.
    struct Cutter {
        let bytes: [UInt8]
        let layout: Layout
        let targetSize: Int
        let newline: Bool
        private(set) var parts: [[UInt8]] = []
        /// The part being built: its line up to and including the open stages.
        private var current: [UInt8] = []
        /// The last unit in the current part.
        private var previous: Unit?
        /// The last unit of the part before, for whether this one continues its stage.
        private var lastOfPrevious: Unit?

        init(bytes: [UInt8], layout: Layout, targetSize: Int, newline: Bool) {
            self.bytes = bytes
            self.layout = layout
            self.targetSize = targetSize
            self.newline = newline
        }

        mutating func append(_ unit: Unit) {
            if self.previous == nil {
                self.open(continuing: self.lastOfPrevious.map { $0.stage == unit.stage } ?? false)
            }
            switch self.previous {
            case nil:
                self.current += #"{"#.utf8
                self.openMember(unit)
            case let previous? where previous.stage != unit.stage:
                self.closeMember(previous)
                self.current += #"},{"#.utf8
                self.openMember(unit)
            case let previous? where previous.member != unit.member:
                self.closeMember(previous)
                self.current += #","#.utf8
                self.openMember(unit)
            case let previous?:
                if let section = previous.section, section != unit.section {
                    self.current += #"]}"#.utf8
                    self.current += #","#.utf8
                    self.openEntry(unit)
                } else {
                    self.current += #","#.utf8
                    if previous.section == nil { self.openEntry(unit) } else { self.current += self.bytes[unit.bytes] }
                }
            }
            self.previous = unit
            if self.current.count + self.bytes[self.layout.tail].count >= self.targetSize {
                self.close(last: false)
            }
        }

        /// The parts, the last one closed with the line's tail (`digest`, and `schema` if any).
        mutating func finish() -> [[UInt8]] {
            if self.previous != nil {
                self.close(last: true)
            } else if var last = self.parts.popLast() {
                // The last unit closed a part: that part is the last one.
                let ending = Array(#","last":false}"#.utf8) + (self.newline ? [UInt8(ascii: "\n")] : [])
                last.removeLast(ending.count)
                last += #","last":true"#.utf8
                last += self.bytes[self.layout.tail]
                if self.newline { last.append(UInt8(ascii: "\n")) }
                self.parts.append(last)
            }
            return self.parts
        }

        private mutating func open(continuing: Bool) {
            self.current = Array(self.bytes[self.layout.head])
            self.current += #","part":\#(self.parts.count)"#.utf8
            if continuing { self.current += #","continues":true"#.utf8 }
            self.current += #","stages":["#.utf8
        }

        private mutating func openMember(_ unit: Unit) {
            self.current += self.bytes[unit.member]
            self.current += #"["#.utf8
            self.openEntry(unit)
        }

        private mutating func openEntry(_ unit: Unit) {
            if let section = unit.section { self.current += self.bytes[section] }
            self.current += self.bytes[unit.bytes]
        }

        private mutating func closeMember(_ unit: Unit) {
            if unit.section != nil { self.current += #"]}"#.utf8 }
            self.current += #"]"#.utf8
        }

        private mutating func close(last: Bool) {
            guard let previous = self.previous else { return }
            self.closeMember(previous)
            self.current += #"}]"#.utf8
            if last {
                self.current += #","last":true"#.utf8
                self.current += self.bytes[self.layout.tail]
            } else {
                self.current += #","last":false}"#.utf8
            }
            if self.newline { self.current.append(UInt8(ascii: "\n")) }
            self.parts.append(self.current)
            self.current = []
            self.lastOfPrevious = previous
            self.previous = nil
        }
    }
}
