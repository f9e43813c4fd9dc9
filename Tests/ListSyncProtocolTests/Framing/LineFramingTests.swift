import ListSyncProtocol
import Testing

@Suite struct LineFramingTests {
    @Test func cutsLinesAndDropsCarriageReturns() throws {
        var buffer = LineBuffer()
        buffer.append(Array("one\ntwo\r\n\nthr".utf8))
        #expect(try buffer.nextLine() == Array("one".utf8))
        #expect(try buffer.nextLine() == Array("two".utf8))
        #expect(try buffer.nextLine() == [])
        #expect(try buffer.nextLine() == nil)
        buffer.append(Array("ee\n".utf8))
        #expect(try buffer.nextLine() == Array("three".utf8))
        #expect(try buffer.nextLine() == nil)
        #expect(buffer.bufferedCount == 0)
    }

    @Test func keepsACarriageReturnThatIsNotALineEnd() throws {
        var buffer = LineBuffer()
        buffer.append(Array("a\rb\n".utf8))
        #expect(try buffer.nextLine() == Array("a\rb".utf8))
    }

    @Test func acceptsALineOfExactlyTheLimit() throws {
        var buffer = LineBuffer(limit: 8)
        buffer.append(Array("12345678\r".utf8))
        #expect(try buffer.nextLine() == nil)
        buffer.append([UInt8(ascii: "\n")])
        #expect(try buffer.nextLine() == Array("12345678".utf8))
    }

    @Test func rejectsALongerLineBeforeItsEndArrives() throws {
        var buffer = LineBuffer(limit: 8)
        buffer.append(Array("123456789".utf8))
        #expect(try buffer.nextLine() == nil)
        buffer.append(Array("0".utf8))
        #expect(throws: ProtocolError(.lineTooLong, "a line is longer than 8 bytes")) { try buffer.nextLine() }
    }

    @Test func rejectsALongerCompleteLine() {
        var buffer = LineBuffer(limit: 8)
        buffer.append(Array("123456789\n".utf8))
        #expect(throws: ProtocolError.self) { try buffer.nextLine() }
    }

    @Test func scansALineArrivingByteByByteOnce() throws {
        let text = Array(String(repeating: "x", count: 1000).utf8) + [UInt8(ascii: "\n")]
        var buffer = LineBuffer()
        var lines: [[UInt8]] = []
        for byte in text {
            buffer.append([byte])
            if let line = try buffer.nextLine() { lines.append(line) }
        }
        #expect(lines == [Array(text.dropLast())])
    }

    @Test func reportsWhereToResume() {
        #expect(LineFraming.nextLine(in: Array("abc".utf8)) == .incomplete(resumeOffset: 3))
        #expect(LineFraming.nextLine(in: Array("abc\nd".utf8), searchedPrefix: 3) == .line(length: 3, consumed: 4))
        #expect(LineFraming.nextLine(in: Array("ab\r\n".utf8)[1...]) == .line(length: 1, consumed: 3))
    }

    @Test func theLimitIsOneMebibyte() {
        #expect(LineFraming.maximumLineLength == 1_048_576)
    }
}
