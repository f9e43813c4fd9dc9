import DurableFiles
import ListFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A long-running client's durable state — what `mirror` and `exec` need to resume where they
/// left off after they were stopped, killed or the machine went down.
///
/// The file is the magic `LSYNCJN1`, then a sequence of entries, each a line of text (without
/// its line end) in DurableFiles' one checksummed record format (``ChecksummedRecord``, as the
/// daemon's state: length, XXH3-64, body). So an entry damaged or edited by hand is noticed even
/// where what it holds would parse. The file is either replaced whole with ``AtomicFileWriter``
/// (a temporary file, `fsync`, rename, `fsync` of the directory) or extended by one entry,
/// appended and flushed with `fdatasync`. After a crash at any instant it holds every entry
/// written completely, and at most one unfinished last entry, which ``read()`` tells apart and
/// ``dropUnfinishedEntry(keeping:)`` cuts off. A file that cannot be read or understood is moved
/// aside to `FILE.damaged`, never deleted, and the client starts over from a snapshot.
///
/// A journal written by the builds before (`HEX BODY` lines, ``LegacyStateJournal``) is still
/// read; the next write replaces it whole in this format.
struct StateJournal {
    /// Where the state is kept.
    let path: String

    /// The start of every journal in this format.
    static let magic = Array("LSYNCJN1".utf8)

    /// What the file held when the client started.
    enum Contents {
        /// There is no state yet: the client has never run with this file.
        case absent
        /// The entries' bodies, each checked against its checksum; when the last entry is
        /// unfinished (a crash while it was appended), it is left out and `unfinishedAfter` is
        /// the length of the whole entries before it. `legacy` when the file is in the format of
        /// the builds before (``LegacyStateJournal``): it must be replaced whole, not appended to.
        case entries(JournalEntries, unfinishedAfter: Int?, legacy: Bool)
        /// The file exists but cannot be read, or an entry before the last does not match its
        /// checksum; the reason.
        case unreadable(String)
    }

    /// The bytes a record adds to its body: the frame header.
    static let entryOverhead = ChecksummedRecord.headerSize

    /// The file's entries, each checked against its checksum; read a record at a time, their
    /// bodies left in the file (``JournalEntries``). O(size of the file), in memory O(largest
    /// entry).
    func read() -> Contents {
        let descriptor = open(self.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            guard errno == ENOENT else { return .unreadable(SystemCallError.lastError(of: "open").reason) }
            return .absent
        }
        var owned = true
        defer { if owned { close(descriptor) } }
        do throws(SystemCallError) {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { throw .lastError(of: "fstat") }
            let size = Int(status.st_size)
            let start = size >= Self.magic.count ? try JournalEntries.read(0..<Self.magic.count, of: descriptor, path: self.path) : []
            guard start == Self.magic else {
                let contents = try FileDescriptorIO.readAll(from: descriptor)
                let (entries, unfinishedAfter) = LegacyStateJournal.entries(of: contents)
                guard let entries else { return .unreadable("entry \(unfinishedAfter ?? 0): the checksum does not match: damaged or edited") }
                return .entries(JournalEntries(entries), unfinishedAfter: unfinishedAfter, legacy: true)
            }
            var bodies: [Range<Int>] = []
            var offset = Self.magic.count
            var unfinishedAfter: Int?
            while offset < size {
                let header = ChecksummedRecord.headerSize
                // A record that runs to the file's end (or past it) is the last one: cut short by a
                // crash when it is short or does not match; one before it that does not match is damage.
                guard size - offset >= header else {
                    unfinishedAfter = offset
                    break
                }
                var reader = ChecksummedRecordReader(try JournalEntries.read(offset..<offset + header, of: descriptor, path: self.path))
                guard let count = reader.declaredCount, count <= UInt64(size - offset - header) else {
                    unfinishedAfter = offset
                    break
                }
                let end = offset + header + Int(count)
                reader = ChecksummedRecordReader(try JournalEntries.read(offset..<end, of: descriptor, path: self.path))
                guard (try? reader.next()) != nil else {
                    guard end == size else { return .unreadable("entry \(bodies.count + 1): the checksum does not match: damaged or edited") }
                    unfinishedAfter = offset
                    break
                }
                bodies.append(offset + header..<end)
                offset = end
            }
            owned = false
            return .entries(JournalEntries(descriptor: descriptor, path: self.path, bodies: bodies), unfinishedAfter: unfinishedAfter, legacy: false)
        } catch {
            return .unreadable(error.reason)
        }
    }

    /// The entry for `line` (a line of text, which may end with its line end): its body in a
    /// checksummed record.
    private static func entry(_ line: [UInt8]) -> [UInt8] {
        let body = line.last == UInt8(ascii: "\n") ? Array(line.dropLast()) : line
        #if DEBUG
        precondition(!body.contains(UInt8(ascii: "\n")), "an entry is one line")
        #endif
        return ChecksummedRecord.frame(body)
    }

    /// Replaces the state with one entry per line of `lines`, durably. O(size of the lines).
    func replace(with lines: [[UInt8]]) throws(SystemCallError) {
        try AtomicFileWriter(path: self.path).write(Self.magic + lines.flatMap(Self.entry))
    }

    /// Replaces the state with one entry per line that `produce` hands to its argument, each
    /// written to the new file as it comes (a list's snapshot chunk by chunk, never whole in
    /// memory), durably once `produce` returns; the state stays as it was when anything fails.
    /// O(size of the lines).
    func replace(producing produce: (_ line: ([UInt8]) throws -> Void) throws -> Void) throws(SystemCallError) {
        let writer = AtomicFileWriter(path: self.path)
        do {
            let file = try PendingReplacement(self.path, through: writer.temporaryPath, permissions: 0o666)
            try file.write(Self.magic)
            try produce { line in try file.write(Self.entry(line)) }
            try file.commit()
        } catch let failure as PendingReplacement.Failure {
            throw failure.described
        } catch {
            // `produce` throws only what writing an entry threw, a PendingReplacement.Failure.
            throw SystemCallError(call: "write", code: EIO, path: self.path, operation: "write")
        }
    }

    /// Appends one entry for `line` and flushes it to disk (`fdatasync`): O(size of the line),
    /// whatever the size of the file. A failed write is cut back off.
    func append(_ line: [UInt8]) throws(SystemCallError) {
        try DurableFile.append(Self.entry(line), to: self.path, dataOnly: true) { step, path, error in
            // An append opens the file: a failed open says so, not "create".
            error.on(path, doing: step == .create ? "open" : step.operation)
        }
    }

    /// Cuts off an unfinished last entry, keeping the first `length` bytes (``Contents/entries(_:unfinishedAfter:)``),
    /// so that the next entry is appended after a whole one; tells on standard error.
    func dropUnfinishedEntry(keeping length: Int) {
        guard truncate(self.path, off_t(length)) == 0 else {
            OutputWriter.writeStandardError("listsync: state \(self.path): cannot cut off an unfinished last entry: \(SystemCallError.lastError(of: "truncate"))\n")
            return
        }
        OutputWriter.writeStandardError("listsync: state \(self.path): an unfinished last entry (a crash while it was written) is dropped\n")
    }

    /// Moves a state that cannot be used to `FILE.damaged` (replacing an older one there), and
    /// tells on standard error why and what happens next: `listsync: state FILE: REASON; moved
    /// aside to FILE.damaged; NEXT`.
    func setAside(because reason: String, then next: String) {
        let aside = self.path + ".damaged"
        let moved = rename(self.path, aside) == 0 ? "moved aside to \(aside)" : "cannot move it aside (\(SystemCallError.lastError(of: "rename")))"
        OutputWriter.writeStandardError("listsync: state \(self.path): \(reason); \(moved); \(next)\n")
    }
}

extension StateJournal {
    /// The state file `mirror` keeps beside `output` when no `--state` is given: the hidden
    /// `.NAME.listsync-state` in its directory.
    static func beside(_ output: String) -> StateJournal {
        let writer = AtomicFileWriter(path: output)
        return StateJournal(path: "\(writer.directory)/.\(writer.name).listsync-state")
    }
}
