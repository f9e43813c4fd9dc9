import ListSyncTestSupport

// The helpers every test target shares (ListSyncTestSupport), under the names this target's
// tests use without importing that module in each file.
typealias ScratchDirectory = ListSyncTestSupport.ScratchDirectory
typealias FileOperations = ListSyncTestSupport.FileOperations
typealias BlockingThread<Value: Sendable> = ListSyncTestSupport.BlockingThread<Value>
