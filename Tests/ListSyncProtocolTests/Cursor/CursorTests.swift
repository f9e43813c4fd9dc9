import ListSyncProtocol
import Testing

@Suite struct CursorTests {
    @Test func roundTripsThroughItsText() {
        let cursor = Cursor(epoch: Epoch(rawValue: 0x5f0c_2a4e_19b7_d3a8), seq: 12)
        #expect(cursor.description == "5f0c2a4e19b7d3a8:12")
        #expect(Cursor("5f0c2a4e19b7d3a8:12") == cursor)
        #expect(Cursor("5F0C2A4E19B7D3A8:12") == cursor)
    }

    @Test func keepsLeadingZerosOfTheEpoch() {
        let cursor = Cursor(epoch: Epoch(rawValue: 0xAB), seq: 0)
        #expect(cursor.description == "00000000000000ab:0")
        #expect(Cursor(cursor.description) == cursor)
    }

    @Test(arguments: [
        "", ":", "5f0c2a4e19b7d3a8", "5f0c2a4e19b7d3a8:", "5f0c2a4e19b7d3a:1", "5f0c2a4e19b7d3a88:1", "5f0c2a4e19b7d3ag:1",
        "5f0c2a4e19b7d3a8:-1", "5f0c2a4e19b7d3a8:+1", "5f0c2a4e19b7d3a8:01", "5f0c2a4e19b7d3a8: 1", "5f0c2a4e19b7d3a8:1:2",
        "5f0c2a4e19b7d3a8:18446744073709551616", "+f0c2a4e19b7d3a8:1",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(Cursor(text) == nil)
    }

    @Test func acceptsTheLargestSequence() {
        #expect(Cursor("0000000000000001:18446744073709551615")?.seq == UInt64.max)
    }

    @Test func randomEpochsDiffer() {
        let epochs = Set((0..<16).map { _ in Epoch.random() })
        #expect(epochs.count == 16)
    }
}
