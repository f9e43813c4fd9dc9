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
/// old content, never a mix). Reads and updates take one lock; a read costs one `pread` of the
/// record.
final class ChangesetArchive: Sendable {
    private struct State: Sendable {
        /// The log's file, open for reading; -1 when there is none.
        var descriptor: Int32 = -1
        var log: ChangesetLog?
    }

    private let state = Mutex(State())

    init() {}

    deinit {
        self.state.withLock { if $0.descriptor >= 0 { close($0.descriptor) } }
    }

    /// The log now in the file it was read from: more records appended to the same file.
    func update(_ log: ChangesetLog) {
        self.state.withLock { $0.log = log }
    }

    /// The log now at `path`, a new file (or none: `nil`).
    func replace(with log: ChangesetLog?, at path: String) {
        let descriptor = log == nil ? -1 : open(path, O_RDONLY | O_CLOEXEC)
        self.state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
            state.descriptor = descriptor
            state.log = descriptor >= 0 ? log : nil
        }
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
    /// - Complexity: O(size of the line).
    func line(publishing seq: UInt64, of epoch: Epoch) -> [UInt8]? {
        self.state.withLock { state -> [UInt8]? in
            guard let log = state.log, log.epoch == epoch, state.descriptor >= 0, let range = log.lineRange(publishing: seq) else { return nil }
            let count = range.count
            var complete = true
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                guard let base = buffer.baseAddress else { return }
                while initialized < count {
                    let read = pread(state.descriptor, base + initialized, count - initialized, off_t(range.lowerBound + initialized))
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
}
