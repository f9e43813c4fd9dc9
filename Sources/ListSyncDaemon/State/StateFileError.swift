import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a state file could not be read or written.
enum StateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A system call failed on the file, e.g. `write` with `ENOSPC`.
    case failed(String, SystemCallError)
    /// The path names a directory or something else that is not a regular file.
    case notARegularFile(String)
    /// A version's record would take the journal (`deltas`) past its bound of `bound` bytes (or
    /// records, ``DeltaJournal/mostRecordsKept``), and the full checkpoint that saves the version
    /// whole instead could not be written: `checkpoint` says why.
    indirect case journalFull(bound: Int, checkpoint: StateFileError)

    /// Whether the file system is full (or the quota is exhausted): the write can succeed later.
    var isOutOfSpace: Bool {
        switch self {
        case .failed(_, let error): return error.code == ENOSPC || error.code == EDQUOT
        case .notARegularFile: return false
        case .journalFull(_, let checkpoint): return checkpoint.isOutOfSpace
        }
    }

    /// A failed step of a ``DurableFile`` operation: the path and the call, as for every other
    /// system call here.
    static func failure(_ step: DurableFile.Step, _ path: String, _ error: SystemCallError) -> StateFileError {
        .failed(path, error)
    }

    var description: String {
        switch self {
        case .failed(let path, let error): return "\(path): \(error)"
        case .notARegularFile(let path): return "\(path): not a regular file"
        case .journalFull(let bound, let checkpoint):
            return "the journal of changes since the last full checkpoint is at its bound of \(bound) bytes or "
                + "\(DeltaJournal.mostRecordsKept) versions, and no full checkpoint can be written: \(checkpoint)"
        }
    }
}

extension DurableFile.Milestone {
    /// The suffix of the crash point (`StateCrashPoints`, `LISTSYNCD_TEST_CRASH_AT`) named for
    /// this milestone, e.g. `log-written`.
    var crashPointName: String {
        switch self {
        case .written: "written"
        case .synced: "synced"
        case .renamed: "renamed"
        }
    }
}
