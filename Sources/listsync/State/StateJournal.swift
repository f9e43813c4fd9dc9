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
/// The file is a sequence of entries, one a line, each `HEX BODY`: the stable 128-bit
/// ``ListValue/contentHash`` of the body, then the body (which holds no line end). So an entry
/// damaged or edited by hand is noticed even where what it holds would parse. The file is either
/// replaced whole with ``AtomicFileWriter`` (a temporary file, `fsync`, rename, `fsync` of the
/// directory) or extended by one entry, appended and flushed with `fdatasync`. After a crash at
/// any instant it holds every entry written completely, and at most one unfinished last entry,
/// which ``read()`` tells apart and ``dropUnfinishedEntry(keeping:)`` cuts off. A file that
/// cannot be read or understood is moved aside to `FILE.damaged`, never deleted, and the client
/// starts over from a snapshot.
struct StateJournal {
    /// Where the state is kept.
    let path: String

    /// What the file held when the client started.
    enum Contents {
        /// There is no state yet: the client has never run with this file.
        case absent
        /// The entries' bodies, each checked against its checksum; when the last entry is
        /// unfinished (a crash while it was appended), it is left out and `unfinishedAfter` is
        /// the length of the whole entries before it.
        case entries([ArraySlice<UInt8>], unfinishedAfter: Int?)
        /// The file exists but cannot be read, or an entry before the last does not match its
        /// checksum; the reason.
        case unreadable(String)
    }

    /// The file's entries, each checked against its checksum. O(size of the file).
    func read() -> Contents {
        let contents: [UInt8]
        do {
            guard let bytes = try self.readBytes() else { return .absent }
            contents = bytes
        } catch {
            return .unreadable(error.reason)
        }
        let lineEnd = UInt8(ascii: "\n")
        var entries: [ArraySlice<UInt8>] = []
        var start = 0
        while start < contents.count {
            // A last line without its line end was cut short while it was appended.
            guard let end = contents[start...].firstIndex(of: lineEnd) else { break }
            guard let body = Self.body(ofEntry: contents[start..<end]) else {
                // Only the last entry can have been cut short by a crash; one before it is damage.
                guard end + 1 == contents.count else { return .unreadable("entry \(entries.count + 1): the checksum does not match: damaged or edited") }
                break
            }
            entries.append(body)
            start = end + 1
        }
        return .entries(entries, unfinishedAfter: start < contents.count ? start : nil)
    }

    /// The body of `entry` (a line without its line end), or `nil` when its checksum does not match.
    private static func body(ofEntry entry: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let hexCount = 32
        guard entry.count > hexCount, entry[entry.startIndex + hexCount] == UInt8(ascii: " ") else { return nil }
        let body = entry[(entry.startIndex + hexCount + 1)...]
        guard entry.prefix(hexCount).elementsEqual(Self.checksum(of: body).utf8) else { return nil }
        return body
    }

    /// The checksum of an entry's body: 32 hex digits.
    private static func checksum(of body: ArraySlice<UInt8>) -> String {
        ListValue.string(String(decoding: body, as: UTF8.self)).contentHash.description
    }

    /// The entry for `line` (a line of text, which may end with its line end): `HEX BODY\n`.
    private static func entry(_ line: [UInt8]) -> [UInt8] {
        let body = line.last == UInt8(ascii: "\n") ? line.dropLast() : line[...]
        #if DEBUG
        precondition(!body.contains(UInt8(ascii: "\n")), "an entry is one line")
        #endif
        var entry = Array(Self.checksum(of: body).utf8)
        entry.append(UInt8(ascii: " "))
        entry += body
        entry.append(UInt8(ascii: "\n"))
        return entry
    }

    /// The file's bytes as they are; `nil` when there is no file.
    private func readBytes() throws(SystemCallError) -> [UInt8]? {
        let descriptor = open(self.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            guard errno == ENOENT else { throw .lastError(of: "open") }
            return nil
        }
        defer { close(descriptor) }
        return try FileDescriptorIO.readAll(from: descriptor)
    }

    /// Replaces the state with one entry per line of `lines`, durably. O(size of the lines).
    func replace(with lines: [[UInt8]]) throws(SystemCallError) {
        try AtomicFileWriter(path: self.path).write(lines.flatMap(Self.entry))
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
