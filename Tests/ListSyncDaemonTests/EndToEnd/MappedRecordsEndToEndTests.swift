import Glibc
import ListFormats
import ListSyncTestSupport
import Testing

extension EndToEndTests.MappedVersions {
    /// The lines of the daemon's `/proc/PID/maps` that map its records file (``SavedRecordsFile``):
    /// an unnamed file in the watch's state directory `directory` — `O_TMPFILE`'s `#INODE
    /// (deleted)`, or `records.tmp (deleted)` where the file system has none.
    static func recordsFileMappings(of pid: pid_t, under directory: String) throws -> [String] {
        try Self.mappings(of: pid, under: directory).filter { line in
            guard line.hasSuffix(" (deleted)"), let name = line.split(separator: "/").last else { return false }
            return name.hasPrefix("#") || name.hasPrefix("records.tmp")
        }
    }

    /// How much of the daemon's mappings of its records file is in its resident set (their
    /// `Rss` in `/proc/PID/smaps`), in bytes.
    static func recordsFileResidentBytes(of pid: pid_t, under directory: String) throws -> Int {
        let mapped = Set(try Self.recordsFileMappings(of: pid, under: directory).compactMap { $0.split(separator: " ").first })
        var resident = 0
        var inRecordsFile = false
        for line in try FileContent.read("/proc/\(pid)/smaps").split(separator: "\n") {
            if let range = line.split(separator: " ").first, range.contains("-"), !line.hasSuffix(":") {
                inRecordsFile = mapped.contains(range)
            } else if inRecordsFile, line.hasPrefix("Rss:") {
                resident += 1024 * (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0)
            }
        }
        return resident
    }

    /// The names in `directory`.
    static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return names
    }

    /// Whether, within 90 s, `listsync snapshot` prints `file`'s list and the mirror holds it.
    static func converged(_ harness: DaemonHarness, _ file: String) async throws -> Bool {
        try await EndToEndTests.SharingReads.converged(
            harness, "list", file: file, options: EndToEndTests.SharingReads.options, mirror: harness.path("list.json"))
    }

    /// Issue 19: once a version is saved, the daemon holds its records (40 bytes a row) as
    /// read-only mappings of a records file of the watch, not in anonymous memory. A daemon of a
    /// 1 MB list maps its records file once the list is loaded and saved, and keeps mapping it
    /// over one-row edits, rows inserted with new keys (in the middle and at the end), rows
    /// deleted, a clean restart and a `SIGKILL`; after every save `listsync snapshot` prints the
    /// file and the mirror holds it.
    @Test func savedRecordsAreServedFromTheRecordsFile() async throws {
        var rows = (0..<40_000).map { Self.row($0) }
        let (harness, file, mirror) = try await Self.startWatch(of: rows)
        let state = harness.path("state")
        var random = SplitMix(seed: 41)
        var step = 0
        var nextKey = rows.count
        func saves(_ count: Int, _ label: String) async throws {
            for _ in 0..<count {
                step += 1
                switch step % 4 {
                case 0:
                    let index = Int.random(in: 0...rows.count, using: &random)
                    rows.insert(Self.row(nextKey, version: step), at: index)
                    nextKey += 1
                case 1:
                    rows.append(Self.row(nextKey, version: step))
                    nextKey += 1
                case 2:
                    rows.remove(at: Int.random(in: 0..<rows.count, using: &random))
                default:
                    let edited = Int.random(in: 0..<rows.count, using: &random)
                    rows[edited] = Self.row(edited, version: step)
                }
                try EndToEndTests.Subscribers.save(Self.text(rows), to: file)
                try #require(try await Self.converged(harness, file), "\(label), step \(step)\n\(harness.log.suffix(2000))\n\(mirror.log.suffix(1000))")
                let pid = try #require(harness.daemon?.pid)
                #expect(!(try Self.recordsFileMappings(of: pid, under: state)).isEmpty, "\(label), step \(step): the records file is not mapped")
                // What the read and the diff touched around the change is let go of once the
                // version is published: edits at places all over the file leave nothing resident.
                let resident = try Self.recordsFileResidentBytes(of: pid, under: state)
                let recordsBytes = rows.count * MemoryLayout<ListRecord>.stride
                #expect(resident < recordsBytes / 8, "\(label), step \(step): \(resident) bytes of the records file's \(recordsBytes) resident")
            }
        }
        let pid = try #require(harness.daemon?.pid)
        #expect(!(try Self.recordsFileMappings(of: pid, under: state)).isEmpty, "loaded: the records file is not mapped")
        // A snapshot (`listsync snapshot`, the mirror's first) reads every record; it lets their
        // pages go as it encodes them, so the records it sent are not left resident.
        try #require(try await Self.converged(harness, file), "loaded\n\(harness.log.suffix(2000))")
        let recordsBytes = rows.count * MemoryLayout<ListRecord>.stride
        let resident = try Self.recordsFileResidentBytes(of: pid, under: state)
        #expect(resident < recordsBytes / 8, "after snapshots: \(resident) bytes of the records file's \(recordsBytes) resident")
        try await saves(8, "before any restart")
        for (restart, killed) in [(1, false), (2, true)] {
            let label = "restart \(restart) (\(killed ? "killed" : "stopped cleanly"))"
            try await EndToEndTests.MappedVersions.stop(harness, killed: killed)
            // The file had no name: nothing of it is left in the state directory.
            #expect(Self.names(in: harness.path("state/list")).allSatisfy { !$0.hasPrefix("#") && !$0.hasPrefix("records") })
            try await harness.startDaemon()
            try mirror.start()
            let restarted = try #require(harness.daemon?.pid)
            // Restored, not yet edited: the restored version's records are mapped too.
            #expect(!(try Self.recordsFileMappings(of: restarted, under: state)).isEmpty, "\(label): the records file is not mapped")
            try #require(try await Self.converged(harness, file), "\(label)\n\(harness.log.suffix(2000))")
            try await saves(4, label)
        }
        #expect(!harness.log.contains("cannot write the records file"), "\(harness.log.suffix(2000))")
        try await mirror.kill()
        #expect(try await harness.stopDaemon() == 0)
    }

    /// A records file the disk has no room for: the state directory on a small tmpfs that holds
    /// the state files of a list of short rows but not its records (40 bytes a row). Every
    /// version is saved and published all the same, its records in memory; the log says so once;
    /// once the file system has room (remounted larger), a later save maps the records file.
    @Test(.enabled(if: geteuid() == 0, "mounting a tmpfs needs root"))
    func aRecordsFileTheDiskHasNoRoomForLeavesTheRecordsInMemory() async throws {
        // About 540 KB of rows; their records take 2.4 MB.
        func row(_ index: Int, version: Int = 0) -> String { "S\(index),\(version == 0 ? "" : "v\(version)")," }
        var rows = (0..<60_000).map { row($0) }
        var state = ""
        let (harness, file, mirror) = try await Self.startWatch(of: rows) { harness in
            state = harness.path("state")
            try FileOperations.makeDirectory(state)
            try #require(mount("tmpfs", state, "tmpfs", 0, "size=2200k") == 0, "mount: errno \(errno)")
        }
        defer { umount2(state, Int32(MNT_DETACH)) }
        var random = SplitMix(seed: 43)
        var step = 0
        func oneRowSave() async throws {
            step += 1
            if step % 3 == 0 {
                rows.insert(row(100_000 + step, version: step), at: Int.random(in: 0...rows.count, using: &random))
            } else {
                let edited = Int.random(in: 0..<rows.count, using: &random)
                rows[edited] = row(edited, version: step)
            }
            try EndToEndTests.Subscribers.save(Self.text(rows), to: file)
            try #require(try await Self.converged(harness, file), "step \(step)\n\(harness.log.suffix(3000))\n\(mirror.log.suffix(1000))")
        }
        for _ in 0..<6 {
            try await oneRowSave()
            let pid = try #require(harness.daemon?.pid)
            #expect(try Self.recordsFileMappings(of: pid, under: state).isEmpty, "step \(step): a records file is mapped on a full disk")
        }
        // Counted by lines: the line names the failure twice (its message and its error).
        let failures = harness.log.split(separator: "\n").filter { $0.contains("cannot write the records file") }.count
        #expect(failures == 1, "the failure is logged \(failures) times\n\(harness.log.suffix(3000))")
        #expect(harness.log.contains("No space left on device"))
        #expect(!harness.log.contains("cannot save the watch's state"), "\(harness.log.suffix(3000))")

        // Room again: within the retry interval and a few saves, the records are mapped.
        try #require(mount("tmpfs", state, "tmpfs", UInt(MS_REMOUNT), "size=16m") == 0, "remount: errno \(errno)")
        let deadline = ContinuousClock.now + .seconds(60)
        var mapped = false
        while !mapped, ContinuousClock.now < deadline {
            try await Task.sleep(for: .seconds(2))
            try await oneRowSave()
            let pid = try #require(harness.daemon?.pid)
            mapped = !(try Self.recordsFileMappings(of: pid, under: state)).isEmpty
        }
        #expect(mapped, "the records file is never mapped once there is room\n\(harness.log.suffix(3000))")
        #expect(harness.log.contains("the records file in the watch's state directory is written again"))
        try await mirror.kill()
        #expect(try await harness.stopDaemon() == 0)
    }
}
