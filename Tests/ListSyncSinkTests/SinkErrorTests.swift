import ListSyncSink
import Testing

/// `SinkError` is a struct with a `Code` (issue 18): new kinds can be added without breaking
/// users' code, and the texts are the ones the enum had.
struct SinkErrorTests {
    @Test func aSinkErrorHasACodeAndAMessage() {
        let diverged = SinkError.diverged("row 3 is missing")
        #expect(diverged.code == .diverged && diverged.code != .database && diverged.message == "row 3 is missing")
        #expect(diverged.description == "the table diverged from the list: row 3 is missing")
        #expect(SinkError.database("locked").description == "database error: locked")
        #expect(SinkError.layout("no column id").description == "no column id")
        #expect(SinkError.refused("held by process 7").description == "held by process 7")
        #expect(SinkError.refused("x") == .refused("x") && SinkError.refused("x") != .layout("x"))
    }
}
