import ListSyncClient
import ListSyncProtocol
import Testing

/// `ClientError` and `MirrorError` are structs with a `Code` (issue 18), so that new kinds can be
/// added without breaking users' code: each error has its code and its details, compares by both,
/// and describes itself in the same words as before.
struct PublicErrorTests {
    static let cursor = Cursor(epoch: Epoch(rawValue: 0x2a), seq: 7)

    @Test func aClientErrorHasACodeAndItsDetails() {
        let unreachable = ClientError.unreachable(socketPath: "/run/listsync.sock", reason: "no such file")
        #expect(unreachable.code == .unreachable && unreachable.code != .connectionLost)
        #expect(unreachable.socketPath == "/run/listsync.sock" && unreachable.reason == "no such file")
        #expect(unreachable.watch == nil && unreachable.refusal == nil && unreachable.mirrorError == nil)
        #expect(unreachable.description == "cannot reach listsyncd at /run/listsync.sock: no such file")
        #expect(unreachable == .unreachable(socketPath: "/run/listsync.sock", reason: "no such file"))
        #expect(unreachable != .unreachable(socketPath: "/run/listsync.sock", reason: "refused"), "the details count")

        let removed = ClientError.watchRemoved("products")
        #expect(removed.code == .watchRemoved && removed.watch == "products")
        #expect(removed.description == "the watch \"products\" was removed from listsyncd's configuration")
        #expect(ClientError.cancelled.code == .cancelled && ClientError.cancelled.description == "cancelled")
        #expect(ClientError.unknownWatch("x").description == "listsyncd has no watch named \"x\"")
        #expect(ClientError.connectionLost(reason: "eof").description == "lost the connection to listsyncd: eof")
        #expect(ClientError.protocolViolation("no hello").description == "listsyncd broke the protocol: no hello")

        let gap = MirrorError.sequenceGap(mirror: Self.cursor, changeset: Cursor(epoch: Self.cursor.epoch, seq: 9), prevSeq: 8)
        let inconsistent = ClientError.inconsistentData(gap)
        #expect(inconsistent.code == .inconsistentData && inconsistent.mirrorError == gap)
        #expect(inconsistent.description == "listsyncd's data does not verify: changeset \(Cursor(epoch: Self.cursor.epoch, seq: 9)) applies to version 8, but the mirror is at \(Self.cursor)")
    }

    @Test func aMirrorErrorHasACodeItsDetailsAndItsRecovery() {
        let next = Cursor(epoch: Self.cursor.epoch, seq: 9)
        let gap = MirrorError.sequenceGap(mirror: Self.cursor, changeset: next, prevSeq: 8)
        #expect(gap.code == .sequenceGap && gap.recovery == .resume)
        #expect(gap.mirrorCursor == Self.cursor && gap.cursor == next && gap.prevSeq == 8 && gap.stage == nil)

        let stage = MirrorError.invalidStage(changeset: next, stage: 2, reason: "out of range")
        #expect(stage.code == .invalidStage && stage.recovery == .freshSnapshot)
        #expect(stage.cursor == next && stage.stage == 2 && stage.reason == "out of range" && stage.prevSeq == nil)
        #expect(stage.description == "stage 2 of changeset \(next) cannot be applied: out of range")

        let wrong = MirrorError.wrongWatch(expected: "a", received: "b")
        #expect(wrong.code == .wrongWatch && wrong.watches?.expected == "a" && wrong.watches?.received == "b" && wrong.cursor == nil)
        #expect(wrong.description == "a message for watch \"b\" reached the mirror of \"a\"")
        #expect(MirrorError.noBase(changeset: next).description == "changeset \(next) arrived before any snapshot")
        #expect(MirrorError.snapshotOutOfOrder(cursor: next, chunk: 3, reason: "r").chunk == 3)
        #expect(MirrorError.Code.digestMismatch.description == "digestMismatch")
    }
}
