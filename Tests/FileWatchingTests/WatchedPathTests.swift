import Testing
@testable import FileWatching

struct WatchedPathTests {
    @Test func splitsIntoDirectoryAndName() throws {
        let path = try WatchedPath("/srv//data/./list.csv")
        #expect(path.path == "/srv/data/list.csv")
        #expect(path.directory == "/srv/data")
        #expect(path.name == "list.csv")
        #expect(try WatchedPath("/list.csv").directory == "/")
    }

    @Test func walksUpAndDownTheTree() {
        #expect(WatchedPath.parent(of: "/srv/data") == "/srv")
        #expect(WatchedPath.parent(of: "/srv") == "/")
        #expect(WatchedPath.parent(of: "/") == nil)
        #expect(WatchedPath.childName(of: "/srv", toward: "/srv/data/x") == "data")
        #expect(WatchedPath.childName(of: "/", toward: "/srv/data") == "srv")
        #expect(WatchedPath.childName(of: "/srv/data", toward: "/srv/database") == nil)
        #expect(WatchedPath.entry("list.csv", in: "/") == "/list.csv")
        #expect(WatchedPath.entry("list.csv", in: "/srv") == "/srv/list.csv")
    }
}
