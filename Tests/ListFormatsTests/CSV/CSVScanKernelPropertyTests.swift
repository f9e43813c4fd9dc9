import CListFormatsScan
import PropertyBased
import Testing

/// Every kernel of the CSV scanner (`listsync_csv_scan_with`: SSE2, AVX2,
/// AVX-512 — those the CPU has) against the grammar read one byte at a time
/// (``ReferenceCSVScan``), and against each other batch for batch: the same
/// rows, field ends, quote flags, blank lines, batch ends and positioned
/// errors, on random text with quotes, `""` escapes, delimiters and line
/// breaks inside quotes, loose quotes, LF, CRLF and lone CR, blank lines,
/// empty, long and non-ASCII fields, ragged rows, a BOM, TSV; cut into
/// batches and chunks of every size.
@Suite struct CSVScanKernelPropertyTests {
    /// Text to scan and how to drive the scan.
    struct Input: Sendable, CustomStringConvertible {
        var bytes: [UInt8]
        var delimiter: UInt8
        /// 3 after a byte-order mark, else 0.
        var start: Int
        var rowCapacity: Int
        var separatorCapacity: Int
        var chunkSize: Int

        var scan: CSVKernelScan {
            CSVKernelScan(rowCapacity: rowCapacity, separatorCapacity: separatorCapacity, chunkSize: chunkSize)
        }

        var description: String {
            "Input(delimiter: \(delimiter), start: \(start), rowCapacity: \(rowCapacity), separatorCapacity: "
                + "\(separatorCapacity), chunkSize: \(chunkSize), text: \(String(decoding: bytes, as: UTF8.self).debugDescription), "
                + "bytes: \(bytes))"
        }
    }

    static let kernels = [Int32(LISTSYNC_CSV_BASELINE), Int32(LISTSYNC_CSV_AVX2), Int32(LISTSYNC_CSV_AVX512)]

    private static let lineEndings = ["\n", "\r\n", "\r"]

    /// A field as it is written in the file.
    static func field(_ rng: inout any SeededRandomNumberGenerator, delimiter: String) -> String {
        let plain = ["a", "Zoë", "12.5", "x y", "中", "😀", "é"]
        func text(_ pieces: [String], upTo length: Int) -> String {
            (0..<Int.random(in: 1...length, using: &rng)).map { _ in pieces.randomElement(using: &rng) ?? "a" }.joined()
        }
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return ""
        case 1: return "\"\""
        case 2: return text(plain, upTo: 150)  // long: across 64-byte blocks
        case 3, 4:
            // Quoted, with what needs the quotes.
            let inside = plain + [delimiter, "\"\"", "\n", "\r\n", "\r", ",", "\t"]
            return "\"" + text(inside, upTo: Bool.random(using: &rng) ? 8 : 120) + "\""
        case 5: return "\"" + text(plain, upTo: 6) + "\""  // quoted without need
        case 6: return text(plain, upTo: 3) + "\"" + text(plain + ["\""], upTo: 4)  // a loose quote
        default: return text(plain, upTo: 8)
        }
    }

    /// Rows of fields, mostly as many as the header's, with blank lines,
    /// mixed line endings and a BOM now and then; sometimes damaged by a
    /// stray quote or a cut (never inside a UTF-8 sequence).
    static func table(_ rng: inout any SeededRandomNumberGenerator) -> (text: [UInt8], delimiter: UInt8) {
        let delimiter = [",", ",", "\t", ";"].randomElement(using: &rng) ?? ","
        let columnCount = Int.random(in: 1...6, using: &rng)
        let fileEnding = lineEndings.randomElement(using: &rng) ?? "\n"
        var text = Int.random(in: 0..<6, using: &rng) == 0 ? "\u{FEFF}" : ""
        for _ in 0..<Int.random(in: 0...40, using: &rng) {
            var count = columnCount
            if Int.random(in: 0..<8, using: &rng) == 0 { count = max(1, count + Int.random(in: -2...2, using: &rng)) }
            text += (0..<count).map { _ in field(&rng, delimiter: delimiter) }.joined(separator: delimiter)
            let ending = Int.random(in: 0..<6, using: &rng) == 0 ? lineEndings.randomElement(using: &rng) ?? "\n" : fileEnding
            text += ending
            if Int.random(in: 0..<10, using: &rng) == 0 {
                text += (0..<Int.random(in: 1...3, using: &rng)).map { _ in lineEndings.randomElement(using: &rng) ?? "\n" }.joined()
            }
        }
        var bytes = Array(text.utf8)
        if Bool.random(using: &rng), let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") {
            bytes.removeLast()
        }
        var at = Int.random(in: 0...bytes.count, using: &rng)
        while at < bytes.count, bytes[at] & 0xC0 == 0x80 { at += 1 }  // not inside a UTF-8 sequence
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: bytes.insert(UInt8(ascii: "\""), at: at)
        case 1: bytes.removeSubrange(at...)
        default: break
        }
        return (bytes, delimiter.utf8.first ?? UInt8(ascii: ","))
    }

    /// Short runs of the bytes that matter, in any order: mostly errors,
    /// loose quotes and ragged rows.
    static func noise(_ rng: inout any SeededRandomNumberGenerator) -> (text: [UInt8], delimiter: UInt8) {
        let pieces = [
            "a", "b", ",", ",", ",,,,,,,,", "\"", "\"", "\"\"", "\n", "\r", "\r\n", "\n\n\n", "é", "中", "😀", " ", "\t",
        ]
        let text = (0..<Int.random(in: 0...200, using: &rng)).map { _ in pieces.randomElement(using: &rng) ?? "a" }.joined()
        return (Array(text.utf8), Bool.random(using: &rng) ? UInt8(ascii: ",") : UInt8(ascii: "\t"))
    }

    static func input(_ text: [UInt8], delimiter: UInt8, _ rng: inout any SeededRandomNumberGenerator) -> Input {
        let start = text.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        return Input(
            bytes: text, delimiter: delimiter, start: start,
            rowCapacity: [1, 2, 3, 7, 1024].randomElement(using: &rng) ?? 1024,
            // The least a batch needs (one block's separators and the slack), or plenty.
            separatorCapacity: Int(LISTSYNC_CSV_SEPARATOR_SLACK) + 64
                + (Bool.random(using: &rng) ? Int.random(in: 0...40, using: &rng) : 16 * 1024),
            chunkSize: [1, 5, 64, 100, 1 << 40].randomElement(using: &rng) ?? 1 << 40)
    }

    static let validText = Generator<Input, Shrink.None<Input>> { rng in
        let (text, delimiter) = Int.random(in: 0..<3, using: &rng) == 0 ? noise(&rng) : table(&rng)
        return input(text, delimiter: delimiter, &rng)
    }

    /// Valid text with an ill-formed UTF-8 sequence somewhere.
    static let damagedText = Generator<Input, Shrink.None<Input>> { rng in
        var (text, delimiter) = table(&rng)
        let damage: [[UInt8]] = [[0x80], [0xC3], [0xE2, 0x82], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF]]
        var at = Int.random(in: 0...text.count, using: &rng)
        while at < text.count, text[at] & 0xC0 == 0x80 { at += 1 }  // not inside a UTF-8 sequence
        text.insert(contentsOf: damage.randomElement(using: &rng) ?? [0xFF], at: at)
        return input(text, delimiter: delimiter, &rng)
    }

    @Test func everyKernelReadsAsTheGrammarSays() async {
        await propertyCheck(count: 600, input: Self.validText) { input in
            let reference = ReferenceCSVScan.scan(input.bytes, delimiter: input.delimiter, from: input.start)
            var baseline: [CSVKernelScan.Batch]?
            for kernel in Self.kernels {
                guard let batches = input.scan.batches(kernel: kernel, input.bytes, delimiter: input.delimiter, from: input.start)
                else { continue }
                #expect(CSVKernelScan.outcome(of: batches) == reference, "kernel \(kernel): \(input)")
                for batch in batches {
                    #expect(batch.rows.allSatisfy { $0.start < batch.limit }, "kernel \(kernel): a row past its chunk: \(input)")
                }
                // Valid text: the kernels agree batch for batch, where each stopped included.
                if let baseline {
                    #expect(batches == baseline, "kernel \(kernel) against SSE2: \(input)")
                } else {
                    baseline = batches
                }
            }
        }
    }

    @Test func theWideKernelsAgreeOnIllFormedUTF8() async {
        await propertyCheck(count: 300, input: Self.damagedText) { input in
            let runs = Self.kernels.compactMap { kernel in
                input.scan.batches(kernel: kernel, input.bytes, delimiter: input.delimiter, from: input.start)
            }
            // Every kernel stops at an error (SSE2 checks UTF-8 by batch, the
            // wide kernels block by block, so which one may differ).
            for batches in runs {
                #expect(CSVKernelScan.outcome(of: batches).ending != .end, "\(input)")
            }
            // AVX2 and AVX-512 check the same blocks: the same batches.
            if runs.count == 3 { #expect(runs[1] == runs[2], "\(input)") }
        }
    }

    @Test func aRowWiderThanTheSeparatorBufferIsScannedAfterItGrows() {
        // 300 fields, most of them empty: more than the least buffer holds (one block's worth).
        let row = (0..<300).map { $0 % 3 == 0 ? "\"f\($0)\"" : "" }.joined(separator: ",")
        let bytes = Array("h\n\(row)\nz\n".utf8)
        let reference = ReferenceCSVScan.scan(bytes, delimiter: UInt8(ascii: ","), from: 0)
        #expect(reference.rows.map(\.separators.count) == [1, 300, 1])
        let scan = CSVKernelScan(
            rowCapacity: 1024, separatorCapacity: Int(LISTSYNC_CSV_SEPARATOR_SLACK) + 64, chunkSize: 1 << 40)
        for kernel in Self.kernels {
            guard let batches = scan.batches(kernel: kernel, bytes, delimiter: UInt8(ascii: ","), from: 0) else { continue }
            #expect(CSVKernelScan.outcome(of: batches) == reference, "kernel \(kernel)")
        }
    }
}
