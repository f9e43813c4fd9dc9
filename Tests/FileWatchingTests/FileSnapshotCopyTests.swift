import DurableFiles
import Glibc
import Testing
@testable import FileWatching

/// Issue 19: ``FileSnapshot/copy(atPath:into:at:maximumAttempts:)`` — the watched file copied
/// inside the kernel into another file (the daemon's checkpoint slot) and given as a mapping of
/// the copy — gives exactly what a read gives: one whole version with its identity, never a
/// torn one, whatever a writer does meanwhile.
struct FileSnapshotCopyTests {
    /// A copy of the file at `path` into a fresh file of `scratch`, from byte 24 (where a slot's
    /// bytes start), read and written: what the daemon does.
    static func copy(_ path: String, into destination: String) throws(FileReadError) -> FileSnapshot {
        let descriptor = open(destination, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .systemCall(path: destination, .lastError(of: "open")) }
        defer { close(descriptor) }
        return try FileSnapshot.copy(atPath: path, into: descriptor, at: 24)
    }

    @Test func aCopyIsTheFileMappedFromTheCopyWithItsIdentity() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/list.ndjson"
        let text = String(repeating: #"{"sku":"a-1","name":"a thing"}"# + "\n", count: 40_011)
        try FileOperations.write(text, to: path)

        let snapshot = try Self.copy(path, into: scratch.path + "/checkpoint.0")

        var status = stat()
        #expect(stat(path, &status) == 0)
        guard case .present(let bytes, let identity) = snapshot else {
            Issue.record("\(path) copied as missing")
            return
        }
        #expect(identity == FileIdentity(status))
        #expect(bytes == FileBytes(Array(text.utf8)))
        #expect(bytes.holdsMappings, "the bytes are not a mapping of the copy")
        // The copy is in the destination, from byte 24; the descriptor's offset at its end.
        guard case .present(let slot, _) = try FileSnapshot.read(atPath: scratch.path + "/checkpoint.0") else {
            Issue.record("no copy")
            return
        }
        let copied = slot.array
        #expect(copied.count == 24 + text.utf8.count)
        #expect(Array(copied[24...]) == Array(text.utf8))
    }

    @Test func anEmptyOrMissingFileCopiesAsARead() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/empty.csv"
        try FileOperations.write("", to: path)
        guard case .present(let bytes, let identity) = try Self.copy(path, into: scratch.path + "/slot") else {
            Issue.record("an empty file copied as missing")
            return
        }
        #expect(bytes.isEmpty)
        #expect(identity.size == 0)
        #expect(try Self.copy(scratch.path + "/absent.csv", into: scratch.path + "/slot") == .missing)
    }

    /// A writer replaces the file over and over with complete versions of different sizes: every
    /// copy is exactly one version, with the identity of the file it came from.
    @Test func copiesDuringRenameOverSavesAreNeverTorn() async throws {
        let versions = (1...4).map { String(repeating: "row \($0)\n", count: 5_000 * $0) }
        let scratch = try ScratchDirectory()
        try await FileSnapshotTests.expectConsistentReads(
            saving: versions, initial: versions[0],
            each: FileSnapshotTests.renameOver, isWhole: { versions.contains($0) },
            reading: { path throws(FileReadError) in try Self.copy(path, into: scratch.path + "/slot") })
    }

    /// A writer keeps appending lines: every copy returned is a whole number of lines that
    /// matches the identity it is returned with — the copy takes the size `fstat` gave, so
    /// without the checks after it, a copy would often end at a size the identity no longer has.
    @Test func copiesDuringAppendsMatchTheirIdentity() async throws {
        let versions = (0..<2_000).map { "row \($0)\n" }
        let scratch = try ScratchDirectory()
        try await FileSnapshotTests.expectConsistentReads(
            saving: versions, initial: "header\n",
            each: { line, path in
                try FileOperations.write([line], to: path, flags: O_WRONLY | O_APPEND)
                usleep(100)
            }, isWhole: { text in text.hasPrefix("header\n") && text.hasSuffix("\n") },
            reading: { path throws(FileReadError) in try Self.copy(path, into: scratch.path + "/slot") })
    }
}
