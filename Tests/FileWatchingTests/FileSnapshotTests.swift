import DurableFiles
import Glibc
import Synchronization
import Testing
@testable import FileWatching

struct FileSnapshotTests {
    @Test func readsTheWholeFileWithTheIdentityStatReports() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/list.csv"
        // Larger than the first read buffer would be for a smaller file, and not a multiple of it.
        let text = String(repeating: "sku,name\n", count: 20_011)
        try FileOperations.write(text, to: path)

        let snapshot = try FileSnapshot.read(atPath: path)

        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(snapshot == .present(bytes: FileBytes(Array(text.utf8)), identity: FileIdentity(status)))
    }

    /// Records what a followed read shows: the size each attempt starts with, and the bytes
    /// seen after each piece (their address, count, and the last piece's bytes).
    struct RecordingFollower: FileReadFollower {
        var sizes: [Int] = []
        var counts: [Int] = []
        var addresses: Set<Int> = []
        var seen: [UInt8] = []

        mutating func begin(size: Int) {
            sizes.append(size)
            counts = []
            seen = []
        }

        mutating func follow(_ bytes: UnsafeRawBufferPointer) {
            counts.append(bytes.count)
            addresses.insert(Int(bitPattern: bytes.baseAddress))
            seen += bytes[seen.count...]
        }
    }

    /// A followed read comes in pieces of `followedPieceSize`, each shown to the follower right
    /// after it is read, all in the buffer the snapshot's bytes are; new or spare alike.
    @Test func aFollowedReadShowsEveryPieceAsItArrives() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/list.ndjson"
        let text = String(repeating: #"{"sku":"a-1","name":"a thing"}"# + "\n", count: 30_011)
        try FileOperations.write(text, to: path)
        var spare: [UInt8] = []
        for round in 0..<2 {
            var follower = RecordingFollower()
            guard case .present(let fileBytes, _) = try FileSnapshot.read(atPath: path, reusing: &spare, following: &follower) else {
                Issue.record("\(path) read as missing")
                return
            }
            let bytes = fileBytes.array
            #expect(bytes == Array(text.utf8))
            #expect(follower.sizes == [text.utf8.count], "round \(round)")
            let pieces = (text.utf8.count + FileSnapshot.followedPieceSize - 1) / FileSnapshot.followedPieceSize
            #expect(follower.counts == (1...pieces).map { min($0 * FileSnapshot.followedPieceSize, text.utf8.count) }, "round \(round)")
            #expect(follower.seen == bytes, "round \(round)")
            #expect(follower.addresses == [Int(bitPattern: bytes.withUnsafeBytes { $0.baseAddress })], "round \(round)")
            spare = bytes  // The next round reads into it.
        }
    }

    /// Issue 19 item 3: a file that still has the identity of the last read and holds the given
    /// bytes gives those bytes — the same storage, no buffer of the file's size made — as a whole
    /// read would (bytes and identity); any difference (a byte, the identity, a missing file)
    /// gives `nil`, to read it whole. Bytes held in pieces are compared, and given back, as they are.
    @Test func anUnchangedFileGivesTheBytesItHoldsWithoutANewBuffer() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/list.csv"
        // Several compared pieces, the last one partial.
        let text = String(repeating: "sku,name\n", count: 3 * FileSnapshot.comparedPieceSize / 9 + 1_001)
        try FileOperations.write(text, to: path)
        guard case .present(let fileBytes, let identity) = try FileSnapshot.read(atPath: path) else {
            Issue.record("\(path) read as missing")
            return
        }
        let bytes = fileBytes.array
        func address(_ bytes: [UInt8]) -> UnsafeRawPointer? { bytes.withUnsafeBytes { $0.baseAddress } }

        let unchanged = FileSnapshot.unchanged(atPath: path, identity: identity, bytes: FileBytes(bytes))
        #expect(unchanged == (try FileSnapshot.read(atPath: path)))
        guard case .present(let sameBytes, let sameIdentity)? = unchanged else {
            Issue.record("an unchanged file compared as changed")
            return
        }
        let same = sameBytes.array
        #expect(address(same) == address(bytes), "a new buffer")
        #expect(sameIdentity == identity)

        // Other bytes of the same length (the last byte, the first), a shorter or longer list.
        var last = bytes
        last[last.count - 1] = UInt8(ascii: "x")
        var first = bytes
        first[0] = UInt8(ascii: "x")
        for other in [last, first, Array(bytes.dropLast()), bytes + [UInt8(ascii: "x")]] {
            #expect(FileSnapshot.unchanged(atPath: path, identity: identity, bytes: FileBytes(other)) == nil)
        }
        // The bytes held in pieces of two storages (a version that shares stretches with the one
        // before), cut inside and across the compared buffers: compared piece by piece, given
        // back in their pieces (no copy); a byte that differs in any piece gives `nil`.
        let cuts = [0, 5, FileSnapshot.comparedPieceSize - 3, FileSnapshot.comparedPieceSize + 10, bytes.count - 1, bytes.count]
        let copy = Array(bytes)
        let pieces = (0..<(cuts.count - 1)).map { FileBytes.Piece(storage: $0 % 2 == 0 ? bytes : copy, range: cuts[$0]..<cuts[$0 + 1]) }
        guard case .present(let inPieces, _)? = FileSnapshot.unchanged(atPath: path, identity: identity, bytes: FileBytes(pieces: pieces)) else {
            Issue.record("an unchanged file compared as changed when its bytes are in pieces")
            return
        }
        #expect(inPieces == fileBytes && inPieces.pieces.count == pieces.count, "the pieces were gathered into a copy")
        for cut in cuts.dropLast() {
            var changed = copy
            changed[cut] ^= 1
            let changedPieces = FileBytes(pieces: pieces.map { FileBytes.Piece(storage: $0.range.contains(cut) ? .array(changed) : $0.storage, range: $0.range) })
            #expect(FileSnapshot.unchanged(atPath: path, identity: identity, bytes: changedPieces) == nil, "byte \(cut) changed")
        }
        // The file written again (same bytes, a new identity), or gone.
        try FileOperations.write(text, to: path)
        if case .present(_, let rewritten) = try FileSnapshot.read(atPath: path), rewritten != identity {
            #expect(FileSnapshot.unchanged(atPath: path, identity: identity, bytes: FileBytes(bytes)) == nil)
        }
        #expect(unlink(path) == 0)
        #expect(FileSnapshot.unchanged(atPath: path, identity: identity, bytes: FileBytes(bytes)) == nil)
    }

    /// A spare buffer nothing else holds is read into in place, whatever the file's new size
    /// (shorter, a little longer); one that is still held is left as it was and a new one made.
    @Test func readsIntoASpareBufferOnlyWhenNothingElseHoldsIt() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/list.csv"
        func read(_ text: String, reusing spare: inout [UInt8]) throws -> [UInt8] {
            try FileOperations.write(text, to: path)
            guard case .present(let fileBytes, _) = try FileSnapshot.read(atPath: path, reusing: &spare) else {
                Issue.record("\(path) read as missing")
                return []
            }
            let bytes = fileBytes.array
            #expect(spare.isEmpty, "the spare is taken")
            #expect(bytes == Array(text.utf8))
            return bytes
        }
        func address(_ bytes: [UInt8]) -> UnsafeRawPointer? { bytes.withUnsafeBytes { $0.baseAddress } }
        let versions = [20_000, 19_000, 20_500, 20_000].enumerated().map { version, rows in
            String(repeating: "\(version),name\n", count: rows)
        }
        var spare: [UInt8] = []
        var current = try read(versions[0], reusing: &spare)
        for text in versions.dropFirst() {
            let storage = address(current)
            spare = current
            current = []
            current = try read(text, reusing: &spare)
            #expect(address(current) == storage, "read in place")
        }
        // Held elsewhere: untouched.
        let held = current
        let copy = held.map { $0 }
        spare = current
        current = try read(versions[1], reusing: &spare)
        #expect(held == copy)
        #expect(address(current) != address(held))
    }

    /// A spare much larger than the file (it shrank a lot) is not read into: the version would
    /// keep all of it alive, and the tracker would never share that version's storage.
    @Test func aSpareMuchLargerThanTheFileIsNotReadInto() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/list.csv"
        let text = String(repeating: "1,name\n", count: 10_000)
        try FileOperations.write(text, to: path)
        func address(_ bytes: [UInt8]) -> UnsafeRawPointer? { bytes.withUnsafeBytes { $0.baseAddress } }
        var spare = [UInt8](repeating: 7, count: FileSnapshot.largestSpare(for: text.utf8.count + 1) + 1)
        guard case .present(let bytes, _) = try FileSnapshot.read(atPath: path, reusing: &spare) else {
            Issue.record("\(path) read as missing")
            return
        }
        #expect(bytes.array == Array(text.utf8))
        // (Its address may be the spare's: the spare is freed first and malloc may give its place
        // back. Its capacity says which it is.)
        #expect(bytes.storageByteCount <= FileSnapshot.largestSpare(for: text.utf8.count + 1), "read into a spare far larger than the file")
        // One just within the bound is read into.
        var fitting = [UInt8](repeating: 7, count: text.utf8.count + 100)
        let fittingAddress = address(fitting)
        guard case .present(let again, _) = try FileSnapshot.read(atPath: path, reusing: &fitting) else {
            Issue.record("\(path) read as missing")
            return
        }
        #expect(address(again.array) == fittingAddress)
    }

    @Test func anEmptyFileIsPresentAndEmpty() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/empty.csv"
        try FileOperations.write("", to: path)

        guard case .present(let fileBytes, let identity) = try FileSnapshot.read(atPath: path) else {
            Issue.record("an empty file read as missing")
            return
        }
        let bytes = fileBytes.array
        #expect(bytes.isEmpty)
        #expect(identity.size == 0)
    }

    @Test func aMissingFileOrDirectoryIsMissing() throws {
        let scratch = try ScratchDirectory()
        #expect(try FileSnapshot.read(atPath: scratch.path + "/absent.csv") == .missing)
        #expect(try FileSnapshot.read(atPath: scratch.path + "/absent/list.csv") == .missing)
    }

    @Test func aDirectoryIsNotARegularFile() throws {
        let scratch = try ScratchDirectory()
        #expect(throws: FileReadError.notARegularFile(path: scratch.path)) {
            try FileSnapshot.read(atPath: scratch.path)
        }
    }

    /// A writer replaces the file over and over with complete versions of different sizes; every
    /// read must return exactly one version, with the identity of the file it came from.
    @Test func readsDuringRenameOverSavesAreNeverTorn() async throws {
        let versions = (1...4).map { String(repeating: "row \($0)\n", count: 5_000 * $0) }
        try await Self.expectConsistentReads(saving: versions, initial: versions[0], each: Self.renameOver, isWhole: { versions.contains($0) })
    }

    /// A save as most programs make it: `version` written to a temporary file beside `path`,
    /// renamed over it.
    @Sendable static func renameOver(_ version: String, _ path: String) throws {
        try FileOperations.write(version, to: path + ".tmp")
        try FileOperations.rename(path + ".tmp", to: path)
    }

    /// A writer keeps appending lines: each returned read must be a whole number of lines that
    /// matches the identity it is returned with — without the before/after check, a read would
    /// often end at a size the identity (taken later) no longer has.
    @Test func readsDuringAppendsMatchTheirIdentity() async throws {
        let versions = (0..<2_000).map { "row \($0)\n" }
        try await Self.expectConsistentReads(saving: versions, initial: "header\n", each: { line, path in
            try FileOperations.write([line], to: path, flags: O_WRONLY | O_APPEND)
            usleep(100)
        }, isWhole: { text in text.hasPrefix("header\n") && text.hasSuffix("\n") })
    }

    /// A thread that saves versions in turn until told to stop — a real thread, because the
    /// reading loop blocks its own and the cooperative pool is only as wide as the machine.
    final class Writer: Sendable {
        let isWriting = Atomic(true)
        let saves = Atomic(0)
        let failure = Mutex<String?>(nil)
        private let thread: Mutex<pthread_t?> = Mutex(nil)

        init(versions: [String], path: String, save: @escaping @Sendable (String, String) throws -> Void) {
            let body = Unmanaged.passRetained(Body { [self] in
                var index = 0
                while isWriting.load(ordering: .relaxed) {
                    index = (index + 1) % versions.count
                    do {
                        try save(versions[index], path)
                    } catch {
                        failure.withLock { $0 = "\(error)" }
                        return
                    }
                    saves.wrappingAdd(1, ordering: .relaxed)
                }
            }).toOpaque()
            var thread = pthread_t()
            guard pthread_create(&thread, nil, { context in
                context.map { Unmanaged<Body>.fromOpaque($0).takeRetainedValue().run() }
                return nil
            }, body) == 0 else {
                Unmanaged<Body>.fromOpaque(body).release()
                failure.withLock { $0 = "pthread_create failed" }
                return
            }
            self.thread.withLock { $0 = thread }
        }

        func stop() {
            isWriting.store(false, ordering: .relaxed)
            if let thread = thread.withLock({ $0.take() }) {
                pthread_join(thread, nil)
            }
        }

        private final class Body {
            let run: () -> Void
            init(_ run: @escaping () -> Void) { self.run = run }
        }
    }

    /// Runs `save` with each of `versions` in turn, forever, on another thread while reading the
    /// file with `read` (a whole read unless told): every successful read must be whole by
    /// `isWhole`, its identity must describe exactly the bytes returned, and reads must have
    /// overlapped many saves.
    static func expectConsistentReads(
        saving versions: [String],
        initial: String,
        each save: @escaping @Sendable (String, String) throws -> Void,
        isWhole: (String) -> Bool,
        reading read: (_ path: String) throws(FileReadError) -> FileSnapshot = { path throws(FileReadError) in try FileSnapshot.read(atPath: path) }
    ) async throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/list.csv"
        try FileOperations.write(initial, to: path)
        let writer = Writer(versions: versions, path: path, save: save)
        defer { writer.stop() }
        var seen: Set<String> = []
        var reads = 0
        var unstable = 0
        let deadline = ContinuousClock.now + .seconds(10)
        while (reads < 300 || writer.saves.load(ordering: .relaxed) < 300), ContinuousClock.now < deadline {
            reads += 1
            do {
                guard case .present(let fileBytes, let identity) = try read(path) else {
                    Issue.record("the file read as missing, though these saves never leave it missing")
                    continue
                }
                let bytes = fileBytes.array
                let text = String(decoding: bytes, as: UTF8.self)
                let whole = isWhole(text)
                #expect(whole, "a torn read of \(bytes.count) bytes")
                #expect(identity.size == Int64(bytes.count))
                seen.insert(text)
            } catch {
                guard case .unstable = error else { throw error }
                unstable += 1
            }
        }
        writer.stop()
        #expect(writer.failure.withLock { $0 } == nil)
        #expect(writer.saves.load(ordering: .relaxed) >= 300, "the writer hardly ran; nothing was proven")
        #expect(seen.count > 1, "every read saw the same version; nothing overlapped")
        // Retries make giving up the exception, not the rule.
        #expect(unstable < reads / 2)
    }

    @Test func errorsSayWhatFailed() {
        #expect("\(FileReadError.systemCall(path: "/srv/list.csv", SystemCallError(call: "open", code: EACCES)))"
            == "/srv/list.csv: open: Permission denied (errno 13)")
        #expect("\(FileReadError.unstable(path: "/srv/list.csv", attempts: 5))"
            == "/srv/list.csv: the file kept changing while being read (5 attempts)")
    }
}
