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

    @Test func agreesWithTheStandardLibrary() async {
        // Mostly ASCII with some multi-byte lead and continuation bytes mixed in.
        let byte = Gen<UInt8>.value(in: 0...255).map { $0 < 128 ? $0 : ($0 < 200 ? $0 : UInt8(ascii: "a")) }
        await propertyCheck(count: 1000, input: byte.array(of: 0...64)) { bytes in
            let isValid = String(validating: bytes, as: UTF8.self) != nil
            #expect((firstInvalid(bytes) == nil) == isValid)
        }
    }
}
