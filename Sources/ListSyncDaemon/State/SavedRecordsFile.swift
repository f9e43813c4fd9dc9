import DurableFiles
#if canImport(Glibc)
import Glibc
#endif
import ListFormats
import Synchronization

/// Issue 19: a saved version's records (``ListFormats/ListRecords``, 40 bytes a row) held as
/// read-only mappings of a file of the watch rather than in anonymous memory — as its bytes are
/// held as mappings of the state files (``WatchStateStore/mappedLiveBytes``). The pages of a
/// mapping count in the resident set only while they are read (and whole passes over the
/// records let them go as they go, ``ListFormats/ListRecords/forEachStretch(_:)``); the kernel
/// can write them back and drop them.
///
/// **A cache, derived from the bytes: never needed to restore.** The file is unnamed — an
/// `O_TMPFILE` in the watch's state directory, which its lock makes ours (or, where the file
/// system has no `O_TMPFILE`, a file created there and unlinked at once) — so a crash or a kill
/// leaves nothing, and it is never flushed. Once a version is saved, the runs of its records that
/// are not in the file yet (arrays: a one-row edit's changed middle, a first read's whole array)
/// are appended to it and mapped (``mapped(_:)``); runs already mapped stay as they are.
///
/// **What is mapped is never written.** Records are only appended after every mapped byte; a
/// failed append is cut back to where the mapped ones end, never before. When the file holds
/// more dead records than live ones (versions long replaced), or the version has more than
/// ``ListFormats/ListRecords/compactionRunLimit`` runs, the version's records are written whole,
/// as one run, to a new unnamed file — compacted there rather than into a new array — and the
/// old file goes once the last mapping of it does.
///
/// **Never in the way of a version.** A write that fails (a full disk) leaves the records as they
/// were, in memory: the version is published all the same. The failure is reported once
/// (``takeReport()``), and the file is tried again ``retryInterval`` later.
///
/// Used by one tracker at a time (its saves are in order); the lock only makes that safe to
/// share between the tracker's threads.
final class SavedRecordsFile: Sendable {
    /// The directory the file is made in: the watch's state directory.
    let directory: String

    /// The environment variable that, set to `0`, keeps saved versions' records in memory (no
    /// records file): for benchmarks that compare, and for a file system that cannot hold it.
    static let mappingSwitch = "LISTSYNCD_MAP_SAVED_RECORDS"

    /// How long after a failed write the file is tried again.
    static let retryInterval: Duration = .seconds(10)

    /// Records beyond the live ones' twice that the file may hold before it is written anew:
    /// 4 MiB of them, so that a small list's file is not rewritten at every version.
    static let slackRecords = (4 << 20) / MemoryLayout<ListRecord>.stride

    /// What happened to the file that the tracker has not reported yet.
    enum Report: Sendable, Equatable {
        /// A write failed (the first since the file last worked): records stay in memory.
        case failed(SystemCallError)
        /// The file works again after ``failed(_:)``.
        case recovered
    }

    private struct State {
        /// The open file, and how many of its bytes hold records (a multiple of a record's
        /// stride, so every run mapped from it is aligned); -1 before the first write.
        var descriptor: Int32 = -1
        var size = 0
        /// When the last write failed, while it has not worked since.
        var failedAt: ContinuousClock.Instant?
        var report: Report?
    }

    private let state = Mutex(State())

    /// A records file in `directory` (made at the first ``mapped(_:)``).
    init(directory: String) {
        self.directory = directory
    }

    deinit {
        let descriptor = self.state.withLock { $0.descriptor }
        if descriptor >= 0 { close(descriptor) }
    }

    /// How many bytes the file holds: the records written to it, live or dead.
    var byteCount: Int {
        self.state.withLock { $0.size }
    }

    /// `records` with every run that is an array written to the file and mapped from it —
    /// the same records, in the same runs — or, when the file is due to be written anew
    /// (dead records outweigh the live ones, or too many runs), all of them written to a new
    /// file as one mapped run. `nil` when nothing is to be done (every run mapped already) or
    /// the file cannot be written now (see ``takeReport()``): the records stay as they are.
    ///
    /// - Complexity: O(records written); O(1) system calls a run.
    func mapped(_ records: ListRecords) -> ListRecords? {
        let stride = MemoryLayout<ListRecord>.stride
        return self.state.withLock { (state: inout State) -> ListRecords? in
            let tooManyRuns = records.runs.count > ListRecords.compactionRunLimit
            guard tooManyRuns || records.runs.contains(where: { $0.storage.mappedRegion == nil }) else { return nil }
            if let failedAt = state.failedAt, ContinuousClock.now < failedAt + Self.retryInterval { return nil }
            let anew = state.descriptor < 0 || tooManyRuns || state.size > 2 * records.count * stride + Self.slackRecords * stride
            do throws(SystemCallError) {
                let result = anew ? try self.writeAnew(records, state: &state) : try self.append(records, state: &state)
                if state.failedAt != nil {
                    state.failedAt = nil
                    state.report = .recovered
                }
                return result
            } catch {
                if state.failedAt == nil { state.report = .failed(error.on(self.directory, doing: "write the records file")) }
                state.failedAt = .now
                return nil
            }
        }
    }

    /// What happened to the file since the last call, once: a first failure, or that it works
    /// again. For the tracker to log.
    func takeReport() -> Report? {
        self.state.withLock { state in
            defer { state.report = nil }
            return state.report
        }
    }

    /// Appends the array runs of `records` after what the file holds and maps each one.
    private func append(_ records: ListRecords, state: inout State) throws(SystemCallError) -> ListRecords {
        let stride = MemoryLayout<ListRecord>.stride
        var runs: [ListRecords.Run] = []
        runs.reserveCapacity(records.runs.count)
        var end = state.size
        do throws(SystemCallError) {
            for run in records.runs {
                guard run.storage.mappedRegion == nil else {
                    runs.append(run)
                    continue
                }
                try run.withUnsafeStorageRecords { buffer throws(SystemCallError) in
                    try FileDescriptorIO.writeAll(UnsafeRawBufferPointer(buffer), to: state.descriptor, at: end)
                }
                runs.append(try Self.mappedRun(of: state.descriptor, offset: end, count: run.range.count, shift: run.shift))
                end += run.range.count * stride
            }
        } catch {
            // Back to where the mapped records end: the space the failed write took is free again
            // (a full disk must not stay full for the state files' sake); nothing mapped is cut.
            _ = ftruncate(state.descriptor, off_t(state.size))
            throw error
        }
        state.size = end
        return ListRecords(runs: runs)
    }

    /// Writes all of `records`, their shifts applied, to a new file as one run, maps it, and
    /// makes it the file (the old one goes with its last mapping).
    private func writeAnew(_ records: ListRecords, state: inout State) throws(SystemCallError) -> ListRecords {
        let descriptor = try Self.openUnnamedFile(in: self.directory)
        var size = 0
        do throws(SystemCallError) {
            var moved: [ListRecord] = []
            try records.forEachStretch { stretch, shift throws(SystemCallError) in
                if shift == 0 {
                    try FileDescriptorIO.writeAll(UnsafeRawBufferPointer(stretch), to: descriptor, at: size)
                } else {
                    moved.removeAll(keepingCapacity: true)
                    moved.append(contentsOf: stretch.lazy.map { $0.moved(by: shift) })
                    try moved.withUnsafeBufferPointer { buffer throws(SystemCallError) in
                        try FileDescriptorIO.writeAll(UnsafeRawBufferPointer(buffer), to: descriptor, at: size)
                    }
                }
                size += stretch.count * MemoryLayout<ListRecord>.stride
                return true
            }
            let mapped = records.isEmpty ? ListRecords() : ListRecords(runs: [try Self.mappedRun(of: descriptor, offset: 0, count: records.count, shift: 0)])
            if state.descriptor >= 0 { close(state.descriptor) }
            state.descriptor = descriptor
            state.size = size
            return mapped
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// A run of the `count` records the file `descriptor` holds from byte `offset`, mapped.
    private static func mappedRun(of descriptor: Int32, offset: Int, count: Int, shift: Int) throws(SystemCallError) -> ListRecords.Run {
        let region = try MappedFileRegion(descriptor: descriptor, offset: offset, count: count * MemoryLayout<ListRecord>.stride)
        guard let storage = ArrayOrMapping<ListRecord>(mapping: region) else { throw SystemCallError(call: "mmap", code: EINVAL) }
        return ListRecords.Run(storage: storage, range: 0..<count, shift: shift)
    }

    /// `O_TMPFILE`: Linux's unnamed file (`__O_TMPFILE | O_DIRECTORY`), which Glibc's module
    /// does not export.
    private static let unnamedFileFlag: Int32 = 0o20_000_000 | O_DIRECTORY

    /// A new file in `directory` that no name leads to: `O_TMPFILE`, or where the file system
    /// has none, a file created there and unlinked at once.
    static func openUnnamedFile(in directory: String) throws(SystemCallError) -> Int32 {
        let descriptor = open(directory, Self.unnamedFileFlag | O_RDWR | O_CLOEXEC, 0o600)
        if descriptor >= 0 { return descriptor }
        guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else { throw .lastError(of: "open", path: directory) }
        let path = directory + "/records.tmp"
        unlink(path)
        let named = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard named >= 0 else { throw .lastError(of: "open", path: path) }
        unlink(path)
        return named
    }
}
