import DurableFiles
import Glibc
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// Issue 19: a long `changeset` line written to an unnamed file of the state directory as it is
/// encoded (``ChangesetLineSpool``) comes back whole — mapped, with nothing left in the
/// directory — and a short one stays an array; when the file cannot be made, or a write fails
/// half-way (a full disk), the line is whole in memory, as before the spool.
@Suite struct ChangesetLineSpoolTests {
    /// `count` bytes of a line, handed to `spool` a stretch at a time as the encoding does, the
    /// rest returned.
    static func spooled(_ line: [UInt8], through spool: ChangesetLineSpool) -> FileBytes? {
        var buffer: [UInt8] = []
        for byte in line {
            buffer.append(byte)
            spool.spillIfFull(&buffer)
        }
        return spool.finish(buffer)
    }

    /// The names in `path`, but `.` and `..`.
    static func names(in path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    static func line(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
    }

    @Test func aLongLineIsMappedFromAFileWithNoName() throws {
        let directory = try ScratchDirectory()
        let line = Self.line(300_000)
        let spooled = try #require(Self.spooled(line, through: ChangesetLineSpool(directory: directory.path, threshold: 4096)))
        #expect(spooled == line)
        #expect(spooled.holdsMappings && spooled.isContiguous)
        #expect(Self.names(in: directory.path).isEmpty, "the file has no name")
    }

    @Test func aShortLineStaysAnArray() throws {
        let directory = try ScratchDirectory()
        let line = Self.line(4000)
        let spooled = try #require(Self.spooled(line, through: ChangesetLineSpool(directory: directory.path, threshold: 4096)))
        #expect(spooled == line)
        #expect(!spooled.holdsMappings)
    }

    @Test func withoutAFileTheLineIsInMemory() throws {
        let directory = try ScratchDirectory()
        let line = Self.line(100_000)
        let spooled = try #require(Self.spooled(line, through: ChangesetLineSpool(directory: directory.path + "/gone", threshold: 4096)))
        #expect(spooled == line)
        #expect(!spooled.holdsMappings)
    }

    @Test(arguments: [0, 3, 20])
    func aWriteThatFailsHalfWayLeavesTheLineWholeInMemory(failingAt write: Int) throws {
        let directory = try ScratchDirectory()
        let line = Self.line(200_000)
        var writes = 0
        let spool = ChangesetLineSpool(directory: directory.path, threshold: 4096) { bytes, descriptor, offset throws(SystemCallError) in
            defer { writes += 1 }
            // A full disk: part of the bytes written, then the error.
            if writes >= write {
                _ = pwrite(descriptor, bytes, bytes.count / 2, off_t(offset))
                errno = ENOSPC
                throw .lastError(of: "pwrite")
            }
            try FileDescriptorIO.writeAll(bytes, to: descriptor, at: offset)
        }
        let spooled = try #require(Self.spooled(line, through: spool))
        #expect(spooled == line)
        #expect(!spooled.holdsMappings)
        #expect(writes > write)
    }
}
