import ListFormats
import Testing

@Suite struct SourceLocatorTests {
    @Test func linesEndAtLFCRLFAndLoneCR() {
        let bytes = Array("a\nbc\r\nd\re".utf8)
        let locator = SourceLocator(bytes: bytes)
        let expected: [(Int, Int)] = [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (2, 4), (3, 1), (3, 2), (4, 1), (4, 2)]
        for (offset, (line, column)) in expected.enumerated() {
            let position = locator.position(ofByteOffset: offset)
            #expect(position == SourcePosition(line: line, column: column, byteOffset: offset))
            let scanned = bytes.withUnsafeBufferPointer { SourceLocator.position(ofByteOffset: offset, in: $0) }
            #expect(scanned == position)
        }
    }

    @Test func columnsCountScalarsNotBytes() {
        let locator = SourceLocator(bytes: Array("é中😀x".utf8))
        #expect(locator.position(ofByteOffset: 9).column == 4)
    }

    @Test func offsetsAreClamped() {
        let locator = SourceLocator(bytes: Array("ab".utf8))
        #expect(locator.position(ofByteOffset: 99) == SourcePosition(line: 1, column: 3, byteOffset: 2))
        #expect(locator.position(ofByteOffset: -5) == SourcePosition(line: 1, column: 1, byteOffset: 0))
    }
}
