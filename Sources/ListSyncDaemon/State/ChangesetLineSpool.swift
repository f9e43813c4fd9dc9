import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ListSyncProtocol

/// Issue 19: a `changeset` line written, as it is encoded, to an unnamed file of the watch's
/// state directory a stretch at a time, then mapped read-only — so that a change of every row of
/// a large list (a line of several times the file) is not held whole in anonymous memory. The
/// history, the state store's records and the subscribers read the line from the mapping, whose
/// pages count in the resident set only while they are read (each reader lets go of them as it
/// goes: ``FileBytes/forEachStretch(_:)``, ``ChangesetPartsInFlight``).
///
/// The file is made with `O_TMPFILE` (or, where the file system has none, created and unlinked
/// at once): it has no name, so nothing else can open, write or cut it while it is mapped (the
/// one condition of ``MappedFileRegion``), and it goes with its last mapping — a crash leaves
/// nothing behind. It is a spool, not state: what makes a version durable is still its journal
/// record or slot (and then the log), written from the mapping.
///
/// A line shorter than ``threshold`` never reaches the file: it stays an array, as before. When
/// the file cannot be made or written (a full disk), the line's bytes stay in memory from there
/// on and ``finish(_:)`` reads back what was written: the line is then whole in memory, as it
/// was before the spool.
final class ChangesetLineSpool: LineSpill {
    /// The bytes a line holds in memory before they are written out: a line up to this long stays an array.
    static let defaultThreshold = 1 << 20

    let threshold: Int
    /// The directory the file is made in (the watch's state directory: the same file system as
    /// the records the line is written to next).
    private let directory: String

    /// What the spool holds.
    private enum State {
        /// Nothing written yet.
        case empty
        /// `count` bytes written to `descriptor`, from its start.
        case writing(descriptor: Int32, count: Int)
        /// The file could not be made (nothing written), or a write to `descriptor` failed after
        /// `count` bytes: the rest stays in memory.
        case failed(descriptor: Int32?, count: Int)
        /// ``finish(_:)`` was called.
        case finished
    }

    private var state = State.empty
    /// Writes bytes to the file at an offset: `pwrite` (a test's stands for a full disk).
    private let write: (_ bytes: [UInt8], _ descriptor: Int32, _ offset: Int) throws(SystemCallError) -> Void

    /// A spool making its file in `directory` once a line reaches `threshold` bytes, writing
    /// with `write` (by default ``FileDescriptorIO/writeAll(_:to:at:)``).
    init(
        directory: String, threshold: Int = ChangesetLineSpool.defaultThreshold,
        write: @escaping (_ bytes: [UInt8], _ descriptor: Int32, _ offset: Int) throws(SystemCallError) -> Void = {
            bytes, descriptor, offset throws(SystemCallError) in try FileDescriptorIO.writeAll(bytes, to: descriptor, at: offset)
        }
    ) {
        precondition(threshold > 0, "a spool that writes every byte")
        self.directory = directory
        self.threshold = threshold
        self.write = write
    }

    func spill(_ bytes: inout [UInt8]) {
        let descriptor: Int32
        let count: Int
        switch self.state {
        case .empty:
            guard let made = Self.unnamedFile(in: self.directory) else {
                self.state = .failed(descriptor: nil, count: 0)
                return
            }
            (descriptor, count) = (made, 0)
        case .writing(let open, let written):
            (descriptor, count) = (open, written)
        case .failed, .finished:
            return
        }
        do throws(SystemCallError) {
            try self.write(bytes, descriptor, count)
        } catch {
            // What this write wrote of them is written again with the rest, if ever: the bytes
            // stay in memory, and ``finish(_:)`` reads back only the first `count`.
            self.state = .failed(descriptor: descriptor, count: count)
            return
        }
        self.state = .writing(descriptor: descriptor, count: count + bytes.count)
        bytes.removeAll(keepingCapacity: true)
    }

    /// The whole line: what was written to the file, then `tail` (the bytes the encoding
    /// returned). Mapped when the line went to the file, `tail` written after it; an array when
    /// it never reached the threshold, or when the file failed (what it holds read back into
    /// memory). `nil` only when bytes written could not be read back: the caller encodes the line
    /// again without a spool. Called once; the file's descriptor is closed (a mapping keeps the
    /// file).
    func finish(_ tail: [UInt8]) -> FileBytes? {
        let state = self.state
        self.state = .finished
        switch state {
        case .empty:
            return FileBytes(tail)
        case .finished:
            preconditionFailure("a spool finished twice")
        case .writing(let descriptor, let count):
            defer { close(descriptor) }
            if (try? self.write(tail, descriptor, count)) != nil,
                let region = try? MappedFileRegion(descriptor: descriptor, count: count + tail.count)
            {
                return FileBytes(mapped: region)
            }
            return Self.readBack(count, from: descriptor).map { FileBytes($0 + tail) }
        case .failed(let descriptor, let count):
            guard let descriptor else { return FileBytes(tail) }
            defer { close(descriptor) }
            return Self.readBack(count, from: descriptor).map { FileBytes($0 + tail) }
        }
    }

    deinit {
        switch self.state {
        case .writing(let descriptor, _), .failed(let descriptor?, _): close(descriptor)
        case .empty, .failed(nil, _), .finished: break
        }
    }

    /// The first `count` bytes of the file open as `descriptor` (its position is still 0: it was
    /// written with `pwrite`); `nil` when they cannot be read whole.
    private static func readBack(_ count: Int, from descriptor: Int32) -> [UInt8]? {
        guard count > 0 else { return [] }
        guard lseek(descriptor, 0, SEEK_SET) == 0, let bytes = try? FileDescriptorIO.readAll(from: descriptor), bytes.count >= count else {
            return nil
        }
        return Array(bytes.prefix(count))
    }

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`, a macro Swift does not import).
    private static let temporaryFileFlag: Int32 = 0o20_000_000 | O_DIRECTORY

    /// A new file in `directory` with no name, open for reading and writing; `nil` when none can
    /// be made.
    private static func unnamedFile(in directory: String) -> Int32? {
        let descriptor = open(directory, Self.temporaryFileFlag | O_RDWR | O_CLOEXEC, 0o600)
        if descriptor >= 0 { return descriptor }
        guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else { return nil }
        // A file system without `O_TMPFILE`: a name of its own, unlinked at once.
        let path = directory + "/changeset-line.\(getpid()).tmp"
        let named = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        guard named >= 0 else { return nil }
        unlink(path)
        return named
    }
}
