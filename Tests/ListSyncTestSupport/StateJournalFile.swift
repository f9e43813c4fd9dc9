import DurableFiles
import Glibc

/// A `listsync` state journal (`mirror`'s `.FILE.listsync-state`, `exec --state FILE`) as the
/// tests look into it: the magic `LSYNCJN1`, then one DurableFiles `ChecksummedRecord` per
/// entry, read with DurableFiles' own reader.
public enum StateJournalFile {
    public static let magic = Array("LSYNCJN1".utf8)

    /// The file's bytes as they are.
    public static func bytes(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        return try FileDescriptorIO.readAll(from: descriptor)
    }

    /// Replaces the file's content with `bytes`, as a crash or a hand edit leaves it.
    public static func write(_ bytes: some Collection<UInt8>, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        try FileContent.append(bytes, to: descriptor, path: path)
    }

    /// The entries' bodies as text; fails unless the file is a journal in this format whose
    /// every record reads whole.
    public static func entries(_ path: String) throws -> [String] {
        let bytes = try self.bytes(path)
        guard bytes.starts(with: self.magic) else { throw TestFailure("\(path) is not a state journal (no LSYNCJN1)") }
        var records = ChecksummedRecordReader(bytes, from: self.magic.count)
        let (payloads, damage) = records.readAll()
        if let damage { throw TestFailure("\(path): \(damage)") }
        return payloads.map { String(decoding: $0, as: UTF8.self) }
    }
}
