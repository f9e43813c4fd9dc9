import Testing
@testable import ListSyncDaemon

/// The mark of state published before it was flushed: the machine's boot id, read as Linux gives
/// it, and the file's bytes read back.
@Suite struct PublishedBeforeSyncMarkTests {
    @Test func theBootIDIsTheSystemsUnlessOverridden() {
        let id = PublishedBeforeSyncMark.currentBootID(testOverride: nil)
        // A UUID: 36 characters, four dashes (the file's line end trimmed).
        #expect(id?.count == 36, "\(String(describing: id))")
        #expect(id?.filter { $0 == "-" }.count == 4)
        #expect(PublishedBeforeSyncMark.currentBootID(testOverride: "boot-a") == "boot-a")
    }

    @Test func theFileReadsBackAndIsTrustedOnlyUnderItsBoot() throws {
        let mark = PublishedBeforeSyncMark(bootID: "b1")
        #expect(try PublishedBeforeSyncMark(decoding: mark.bytes) == mark)
        #expect(mark.distrust(under: "b1") == nil)
        #expect(mark.distrust(under: "b2")?.hasPrefix("the machine stopped without listsyncd stopping cleanly") == true)
        #expect(mark.distrust(under: nil) != nil)
        let failed = PublishedBeforeSyncMark(bootID: "b1", syncFailed: true)
        #expect(try PublishedBeforeSyncMark(decoding: failed.bytes) == failed)
        #expect(failed.distrust(under: "b1") != nil)
        #expect(throws: StateDamage.Reason.self) { try PublishedBeforeSyncMark(decoding: Array("garbage\n".utf8)) }
    }
}
