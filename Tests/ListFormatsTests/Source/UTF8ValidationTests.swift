import CListFormatsScan
@testable import ListFormats
import PropertyBased
import Testing

/// The validator must agree with the standard library's UTF-8 decoder.
@Suite struct UTF8ValidationTests {
    private func firstInvalid(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset(in: $0) }
    }

    @Test(arguments: [
        [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x80], [0xBF], [0xC3], [0xE2, 0x82], [0xFF], [0xFE],
    ] as [[UInt8]])
    func illFormedSequences(_ sequence: [UInt8]) {
        #expect(firstInvalid(Array("0123456789".utf8) + sequence + Array("abc".utf8)) == 10)
    }

    @Test func wellFormedText() {
        #expect(firstInvalid(Array("plain ascii, long enough for the word loop: 0123456789abcdef".utf8)) == nil)
        #expect(firstInvalid(Array("é中😀\u{10FFFF}\u{D7FF}\u{E000}".utf8)) == nil)
        #expect(firstInvalid([]) == nil)
    }

    /// Text of mostly ASCII and well-formed sequences, with now and then a
    /// byte that breaks it: a stray continuation, a cut sequence, an
    /// overlong form, a surrogate.
    static let damagedText = Generator<[UInt8], Shrink.None<[UInt8]>> { rng in
        let pieces: [[UInt8]] = [
            Array("plain, \"text\"\n".utf8), Array("é".utf8), Array("中".utf8), Array("😀".utf8), Array("Zoë".utf8),
        ]
        let damage: [[UInt8]] = [[0x80], [0xC3], [0xE2, 0x82], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF]]
        var bytes: [UInt8] = []
        for _ in 0..<Int.random(in: 0...60, using: &rng) {
            let isDamage = Int.random(in: 0..<40, using: &rng) == 0
            bytes += (isDamage ? damage : pieces).randomElement(using: &rng) ?? []
        }
        return bytes
    }

    @Test func theVectorizedCheckAgreesWithTheScalarOne() async {
        await propertyCheck(count: 2000, input: Self.damagedText) { bytes in
            let error = bytes.withUnsafeBufferPointer { buffer -> ListFormatError? in
                var validation = UTF8Validation(bytes: buffer)
                do throws(ListFormatError) {
                    try validation.validateAll()
                    return nil
                } catch {
                    return error
                }
            }
            #expect(error?.position?.byteOffset == firstInvalid(bytes), "\(bytes)")
        }
    }

    /// Longer text of the same kind, so that whole groups of blocks (some
    /// all ASCII, skipped; some not, checked block by block) come before
    /// the tail.
    static let longDamagedText = Generator<[UInt8], Shrink.None<[UInt8]>> { rng in
        var bytes: [UInt8] = []
        for _ in 0..<Int.random(in: 1...12, using: &rng) {
            let isASCII = Bool.random(using: &rng)
            var piece = isASCII
                ? Array(repeating: UInt8(ascii: "a"), count: Int.random(in: 1...700, using: &rng))
                : damagedText.run(using: &rng)
            if !isASCII, Int.random(in: 0..<4, using: &rng) == 0 { piece = piece.filter { $0 < 0x80 || $0 >= 0xC0 } }
            bytes += piece
        }
        return bytes
    }

    @Test func everyVectorizedCheckAgreesWithTheScalarOne() async {
        let kernels = [Int32(LISTSYNC_UTF8_AVX2), Int32(LISTSYNC_UTF8_AVX512)]
        await propertyCheck(count: 3000, input: Self.longDamagedText) { bytes in
            let isValid = firstInvalid(bytes) == nil
            // The check the readers use, whichever kernel this CPU gives it…
            let chosen = bytes.withUnsafeBufferPointer { listsync_utf8_is_valid($0.baseAddress, Int64($0.count)) }
            #expect(chosen == isValid, "\(bytes.count) bytes")
            // …and each kernel the CPU has.
            for kernel in kernels {
                let result = bytes.withUnsafeBufferPointer { listsync_utf8_is_valid_with(kernel, $0.baseAddress, Int64($0.count)) }
                guard result >= 0 else { continue }
                #expect((result == 1) == isValid, "kernel \(kernel), \(bytes.count) bytes")
            }
        }
    }

    @Test func readersReportTheFirstIllFormedByte() async {
        // The CSV scanner checks as it splits rows, the JSON reader a chunk
        // ahead of its records: both must find the first ill-formed byte.
        await propertyCheck(count: 500, input: Self.damagedText) { text in
            let field = text.filter { $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 >= 0x20 }
            let quoted = text.flatMap { $0 == UInt8(ascii: "\"") ? [$0, $0] : [$0] }
            let csvBytes = Array("id,text\n1,\"".utf8) + quoted + Array("\"\n2,x\n".utf8)
            let jsonBytes = Array("[{\"id\": 1, \"text\": \"".utf8) + field + Array("\"}]".utf8)
            for (bytes, format) in [(csvBytes, csv), (jsonBytes, .json), (Array(jsonBytes.dropFirst().dropLast()), .ndjson)] {
                let expected = firstInvalid(bytes)
                let error = readError(bytes, format)
                if let expected {
                    #expect(error == .invalidUTF8(at: bytes.withUnsafeBufferPointer {
                        SourceLocator.position(ofByteOffset: expected, in: $0)
                    }), "\(format) \(bytes)")
                } else {
                    #expect(error == nil, "\(format) \(bytes)")
                }
            }
        }
    }

    @Test func agreesWithTheStandardLibrary() async {
        // Mostly ASCII with some multi-byte lead and continuation bytes mixed in.
        let byte = Gen<UInt8>.value(in: 0...255).map { $0 < 128 ? $0 : ($0 < 200 ? $0 : UInt8(ascii: "a")) }
        await propertyCheck(count: 1000, input: byte.array(of: 0...64)) { bytes in
            let isValid = String(validating: bytes, as: UTF8.self) != nil
            #expect((firstInvalid(bytes) == nil) == isValid)
        }
    }
}
