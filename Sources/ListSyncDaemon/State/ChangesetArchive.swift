#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ListSyncProtocol
import Synchronization

/// The changesets of a watch's ``ChangesetLog`` on disk, readable by the watch's feed: what lets
/// memory hold only a small cache of recent changesets (``ChangesetHistory``) while a client that
/// resumes from an older cursor still gets exactly the lines that were sent, read back from disk.
///
/// The state store updates it whenever its log changes: after an append (same file, one more
/// record) or a replacement (a new file: the descriptor is reopened, so records are always read
/// from the file whose offsets they name — an open descriptor keeps reading a replaced file's
/// old content, never a mix). Updates and the look-up of a record take one lock, for O(1) work;
/// the `pread` of the record happens outside it, on a descriptor the read keeps open (a
/// replacement meanwhile closes it only when the read is done), so a large read never holds up
/// the tracker's update.
final class ChangesetArchive: ArchivedChangesets {
    /// The log's file, open for reading; closed when the archive and every read let go of it.
    private final class OpenFile: Sendable {
        let descriptor: Int32

        init?(path: String) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            self.descriptor = descriptor
        }

        deinit {
            close(self.descriptor)
        }

        /// The bytes of `range`, or `nil` when the file does not hold them whole.
        func read(_ range: Range<Int>) -> [UInt8]? {
            let count = range.count
            var complete = true
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                guard let base = buffer.baseAddress else { return }
                while initialized < count {
                    let read = pread(self.descriptor, base + initialized, count - initialized, off_t(range.lowerBound + initialized))
                    if read > 0 {
                        initialized += read
                    } else if read < 0, errno == EINTR {
                        continue
                    } else {
                        complete = false
                        return
                    }
                }
            }
            return complete ? bytes : nil
        }
    }

    private struct State: Sendable {
        /// The log's file; `nil` when there is none.
        var file: OpenFile?
        var log: ChangesetLog?
    }

    private let state = Mutex(State())

    init() {}

    /// The log now in the file it was read from: more records appended to the same file.
    func update(_ log: ChangesetLog) {
        self.state.withLock { $0.log = log }
    }

    /// The log now at `path`, a new file (or none: `nil`).
    func replace(with log: ChangesetLog?, at path: String) {
        let file = log == nil ? nil : OpenFile(path: path)
        // The old file is returned, so it is closed outside the lock (once no read holds it).
        _ = self.state.withLock { state -> OpenFile? in
            defer {
                state.file = file
                state.log = file == nil ? nil : log
            }
            return state.file
        }
    }

    /// Lets go of the log's file, whose space the file system reclaims once no read holds it:
    /// the watch's state was deleted.
    func releaseFile() {
        self.replace(with: nil, at: "")
    }

    /// The `seq`s of history `epoch` whose changesets are on disk; `nil` when none are.
    ///
    /// - Complexity: O(1).
    func seqs(of epoch: Epoch) -> ClosedRange<UInt64>? {
        self.state.withLock { state in
            guard let log = state.log, log.epoch == epoch, let first = log.records.first else { return nil }
            return first.seq...log.lastSeq
        }
    }

    /// The line of the changeset that published `seq` of history `epoch`, as it was sent; `nil`
    /// when the log does not hold it or it cannot be read whole.
    ///
    /// - Complexity: O(1) under the lock; a `pread` of the line outside it.
    func line(publishing seq: UInt64, of epoch: Epoch) -> [UInt8]? {
        let found = self.state.withLock { state -> (OpenFile, Range<Int>)? in
            guard let log = state.log, log.epoch == epoch, let file = state.file, let range = log.lineRange(publishing: seq) else { return nil }
            return (file, range)
        }
        guard let (file, range) = found else { return nil }
        return file.read(range)
    }
}
