import Synchronization

/// Held while a child process starts (``ChildProcess``) and while a test writes a whole file in
/// one go (``FileOperations/write(_:to:)``), so that no child starts while such a file is open.
///
/// `posix_spawn` copies the tests' descriptors into the child, which holds them until it runs
/// its program (`O_CLOEXEC` closes them only then). A file written and closed by one test while
/// another test's child was starting stayed open in that child for a moment: the watcher saw
/// its `IN_CLOSE_WRITE` late, and a rename right after waited the settle delay as it must for a
/// file someone holds open — `FileWatcherTests.Settling.aClosedFileRenamedOverIsAnnouncedWithoutTheSettleDelay`
/// missed its bound at load 8–10. Writers that pause or keep a file open do not take it: a
/// child start would wait for them.
package enum DescriptorInheritance {
    private static let lock = Mutex<Void>(())

    /// Runs `body` with no child process starting meanwhile.
    package static func withoutChildStarts<Result>(_ body: () throws -> Result) rethrows -> Result {
        try lock.withLock { _ in try body() }
    }
}
