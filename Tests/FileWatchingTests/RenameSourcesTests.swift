import Testing
@testable import FileWatching

/// Which renames over a watched file are complete at once (issue 19 item 5): only a file
/// followed since its creation, closed after writing, that nobody holds open.
@Suite struct RenameSourcesTests {
    static let directory = "/srv/lists"

    /// `name` renamed over the watched file with `cookie`: whether the rename brings a complete file.
    static func renamed(_ sources: inout RenameSources, _ name: String, cookie: UInt32) -> Bool {
        sources.note(.movedFrom, name: name, in: Self.directory, cookie: cookie)
        return sources.isCompleteRename(into: Self.directory, cookie: cookie)
    }

    @Test func aFileCreatedWrittenAndClosedIsComplete() {
        var sources = RenameSources()
        sources.note(.create, name: "a.tmp", in: Self.directory, cookie: 0)
        sources.note(.open, name: "a.tmp", in: Self.directory, cookie: 0)
        sources.note(.modify, name: "a.tmp", in: Self.directory, cookie: 0)
        sources.note(.closeWrite, name: "a.tmp", in: Self.directory, cookie: 0)
        #expect(Self.renamed(&sources, "a.tmp", cookie: 7))
    }

    @Test func aFileStillHeldOpenIsNotComplete() {
        var sources = RenameSources()
        sources.note(.create, name: "a.tmp", in: Self.directory, cookie: 0)
        sources.note(.open, name: "a.tmp", in: Self.directory, cookie: 0)
        sources.note(.open, name: "a.tmp", in: Self.directory, cookie: 0)
        sources.note(.closeWrite, name: "a.tmp", in: Self.directory, cookie: 0)
        #expect(!Self.renamed(&sources, "a.tmp", cookie: 7))
    }

    /// A file seen first by a close: whoever opened it before the events began may still hold it.
    @Test func aFileNotFollowedSinceItsCreationIsNeverComplete() {
        var sources = RenameSources()
        sources.note(.closeWrite, name: "old.tmp", in: Self.directory, cookie: 0)
        #expect(!Self.renamed(&sources, "old.tmp", cookie: 7))
    }

    /// Past the bound the table starts afresh: a file it forgot is not complete, and the table
    /// never holds more than the bound however many files are created.
    @Test func pastTheBoundAForgottenFileWaitsItsSettleDelay() {
        var sources = RenameSources()
        sources.note(.create, name: "kept.tmp", in: Self.directory, cookie: 0)
        sources.note(.open, name: "kept.tmp", in: Self.directory, cookie: 0)
        for index in 0..<RenameSources.maximumEntries {
            sources.note(.create, name: "other-\(index).tmp", in: Self.directory, cookie: 0)
        }
        #expect(sources.count <= RenameSources.maximumEntries)
        // Its opener closes it: without the open the table forgot, it would look complete.
        sources.note(.closeWrite, name: "kept.tmp", in: Self.directory, cookie: 0)
        #expect(!Self.renamed(&sources, "kept.tmp", cookie: 7))
    }
}
