import ListFormats
import ListSyncProtocol
import PropertyBased
import Synchronization
import Testing
@testable import ListSyncDaemon

/// What the state's journal entry of a version need not compare (``UnchangedByteEnds``, issue 19):
/// the bytes the incremental reader kept at both ends from the last good version's. On random
/// edits of every shape (those of `KnownEqualEndsPropertyTests`), with content-equal rewrites
/// between them (other spacing or quoting: nothing is published, and the reader then follows
/// bytes other than the live version's) and saves of the same bytes again: the ends a version
/// claims are the previous version's bytes, the ``ByteDelta`` from them is exactly the one found
/// by comparing every byte, and the machine publishes what the full path publishes.
@Suite struct UnchangedByteEndsPropertyTests {
    typealias Model = KnownEqualEndsPropertyTests.Model

    /// `text` written another way with the same content: JSON with spaces after its colons,
    /// CSV and TSV with the price quoted.
    static func respelled(_ text: String, format: String) -> String {
        switch format {
        case "ndjson", "json": return text.replacingOccurrences(of: "\":", with: "\": ")
        default:
            let separator: Character = format == "tsv" ? "\t" : ","
            let lineBreak = format == "csv-crlf-bom" ? "\r\n" : "\n"
            return text.components(separatedBy: lineBreak).enumerated().map { index, line in
                guard index > 0, let last = line.lastIndex(of: separator), line[line.index(after: last)...].allSatisfy(\.isNumber),
                    line.index(after: last) < line.endIndex
                else { return line }
                return String(line[...last]) + "\"" + String(line[line.index(after: last)...]) + "\""
            }.joined(separator: lineBreak)
        }
    }

    final class Tally: Sendable {
        let knownBytes = Mutex(0)
        let respelled = Mutex(0)
    }

    @Test(arguments: ["csv", "csv-crlf-bom", "tsv", "ndjson", "json"])
    func theKeptEndsAreThePreviousBytesAndGiveTheFullDelta(format: String) async {
        let options = KnownEqualEndsPropertyTests.options(format)
        let tally = Tally()
        await propertyCheck(count: 40, input: KnownEqualEndsPropertyTests.edits) { edits in
            #expect(throws: Never.self) {
                var model = Model()
                var machine = try KnownEqualEndsPropertyTests.machine(publishing: model.text(format), options: options)
                // The reader's test of bytes that may be the last ones, beside: false only for other bytes.
                var reader = IncrementalListReader(options: options, chunkSize: 96)
                var readBytes = Array(model.text(format).utf8)
                _ = try reader.read(bytes: readBytes)
                for edit in edits {
                    model.apply(edit)
                    let plain = model.text(format)
                    // Now and then the same content spelled otherwise first, then as before.
                    let spellings = edit.b % 3 == 0 ? [Self.respelled(plain, format: format), plain] : edit.b % 3 == 1 ? [plain, plain] : [plain]
                    for text in spellings {
                        let bytes = Array(text.utf8)
                        #expect(reader.mayBePreviousBytes(readBytes))
                        if !reader.mayBePreviousBytes(bytes) { #expect(bytes != readBytes) }
                        if (try? reader.read(bytes: bytes)) != nil { readBytes = bytes } else { reader.forget() }
                        let before = try #require(machine.state.lastGood)
                        var full = FileTracker.StateMachine(watch: "w", restoring: before, options: options, chunkSize: 96)
                        let expected = full.ingest(FileTrackerStateMachineTests.present(text), options: options)
                        let published = machine.ingest(FileTrackerStateMachineTests.present(text), options: options)
                        #expect(published?.changesetLine == expected?.changesetLine, "after \(edit)")
                        #expect(published?.version?.digest == expected?.version?.digest)
                        if published?.version == nil && Array(text.utf8) != before.list.bytes { tally.respelled.withLock { $0 += 1 } }
                        guard let version = published?.version, let ends = version.unchangedBytes else { continue }
                        let old = before.list.bytes
                        let new = version.list.bytes
                        #expect(ends.previous == before.cursor)
                        #expect(ends.prefix + ends.suffix <= min(old.count, new.count))
                        #expect(old.prefix(ends.prefix).elementsEqual(new.prefix(ends.prefix)), "the kept start is the previous bytes")
                        #expect(old.suffix(ends.suffix).elementsEqual(new.suffix(ends.suffix)), "the kept end is the previous bytes")
                        #expect(ByteDelta(from: old, to: new, known: (ends.prefix, ends.suffix)) == ByteDelta(from: old, to: new))
                        if ends.prefix + ends.suffix > new.count / 2 { tally.knownBytes.withLock { $0 += 1 } }
                    }
                }
            }
        }
        #expect(tally.knownBytes.withLock { $0 } > 50, "most of the file was known equal, often")
        #expect(tally.respelled.withLock { $0 } > 20, "content-equal rewrites published nothing")
    }

    /// ``ByteDelta`` from known ends equals the one from comparing every byte, for any true
    /// ends: none, all, meeting, past the shorter file (clamped).
    @Test func aDeltaFromKnownEndsIsTheFullOne() async {
        let bytes = Gen.int(in: 0...3).map { UInt8($0) }.array(of: 0...40)
        await propertyCheck(count: 2_000, input: zip(bytes, bytes, Gen.int(in: 0...1_000))) { old, new, pick in
            let limit = min(old.count, new.count)
            var prefix = 0
            while prefix < limit && old[prefix] == new[prefix] { prefix += 1 }
            var suffix = 0
            while suffix < limit - prefix && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
            // Any part of the true ends: the suffix as seen from any prefix up to the longest.
            let knownPrefix = pick % (prefix + 1)
            var knownSuffix = 0
            while knownSuffix < limit - knownPrefix && old[old.count - 1 - knownSuffix] == new[new.count - 1 - knownSuffix] { knownSuffix += 1 }
            knownSuffix = (pick / 7) % (knownSuffix + 1)
            #expect(ByteDelta(from: old, to: new, known: (knownPrefix, knownSuffix)) == ByteDelta(from: old, to: new), "\(old) → \(new)")
        }
    }
}
