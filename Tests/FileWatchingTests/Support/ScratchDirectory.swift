import ListSyncTestSupport

/// The shared scratch directory of every test target (ListSyncTestSupport), under the name the
/// watcher's tests use without importing that module in each file.
typealias ScratchDirectory = ListSyncTestSupport.ScratchDirectory
