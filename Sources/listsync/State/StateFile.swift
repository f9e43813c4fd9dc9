import ListFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A long-running client's durable state — what `mirror` and `exec` need to resume where they
/// left off after they were stopped, killed or the machine went down.
///
/// The file is replaced whole with ``AtomicFileWriter`` (a temporary file, `fsync`, rename,
/// `fsync` of the directory), so after a crash at any instant it holds the last state written
/// completely. Its last line is a checksum of the rest (`checksum HEX`, the stable 128-bit
/// ``ListValue/contentHash`` of the text), so a state damaged or edited by hand is noticed even
/// where what it holds would parse. A file that cannot be read or understood is moved aside to `FILE.damaged`, never
/// deleted, and the client starts over from a snapshot.
struct StateFile {
    /// Where the state is kept.
    let path: String

    /// What the file held when the client started.
    enum Contents {
        /// There is no state yet: the client has never run with this file.
        case absent
        /// The state written, its checksum verified (without the checksum line).
        case bytes([UInt8])
        /// The file exists but cannot be read, or its checksum does not match; the reason.
        case unreadable(String)
    }

    /// The file's contents, checked against their checksum. O(size of the file).
    func read() -> Contents {
        let contents = self.readBytes()
        guard case .bytes(let bytes) = contents else { return contents }
        let lineEnd = UInt8(ascii: "\n")
        guard bytes.last == lineEnd else { return .unreadable("no line end at the end: truncated or damaged") }
        let start = bytes.dropLast().lastIndex(of: lineEnd).map { $0 + 1 } ?? 0
        let body = Array(bytes[..<start])
        guard String(decoding: bytes[start...], as: UTF8.self) == Self.checksumLine(of: body) else {
            return .unreadable("the checksum does not match: damaged or edited")
        }
        return .bytes(body)
    }

    /// `checksum HEX\n` for `body`.
    private static func checksumLine(of body: [UInt8]) -> String {
        "checksum \(ListValue.string(String(decoding: body, as: UTF8.self)).contentHash)\n"
    }

    /// The file's bytes as they are.
    private func readBytes() -> Contents {
        let descriptor = open(self.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return errno == ENOENT ? .absent : .unreadable(String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        do {
            return .bytes(try FileDescriptorIO.readAll(from: descriptor))
        } catch {
            return .unreadable(error.reason)
        }
    }

    /// Replaces the state with `bytes` (which end with a line end) and their checksum, durably.
    func write(_ bytes: [UInt8]) throws(AtomicFileWriter.Failure) {
        try AtomicFileWriter(path: self.path).write(bytes + Array(Self.checksumLine(of: bytes).utf8))
    }

    /// Moves a state that cannot be used to `FILE.damaged` (replacing an older one there), and
    /// tells on standard error why and what happens next: `listsync: state FILE: REASON; moved
    /// aside to FILE.damaged; NEXT`.
    func setAside(because reason: String, then next: String) {
        let aside = self.path + ".damaged"
        let moved = rename(self.path, aside) == 0 ? "moved aside to \(aside)" : "cannot move it aside (\(String(cString: strerror(errno))))"
        OutputWriter.writeStandardError("listsync: state \(self.path): \(reason); \(moved); \(next)\n")
    }
}

extension StateFile {
    /// The state file `mirror` keeps beside `output` when no `--state` is given: the hidden
    /// `.NAME.listsync-state` in its directory.
    static func beside(_ output: String) -> StateFile {
        let writer = AtomicFileWriter(path: output)
        return StateFile(path: "\(writer.directory)/.\(writer.name).listsync-state")
    }
}
