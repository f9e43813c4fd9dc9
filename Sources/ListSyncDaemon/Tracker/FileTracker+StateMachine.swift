#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import DurableFiles
import FileWatching
import ListDiff
import ListFormats
import ListSyncProtocol

extension FileTracker {
    /// What a tracker knows about its file, and how each read of it turns into at most one
    /// ``WatchPublication``.
    ///
    /// Pure and synchronous — reads come in as ``FileSnapshot`` results — so every transition is
    /// testable without files or threads. The tracker runs it on a thread pool, one read at a time.
    struct StateMachine: Sendable {
        /// The file's state. Each case carries what is valid in it; the last good version, once
        /// there is one, is never dropped: a file that turns invalid or vanishes keeps being served.
        enum State: Sendable {
            /// Nothing has been read yet.
            case loading
            /// The file's latest content is the live version.
            case live(WatchVersion)
            /// The file's latest content does not parse (or cannot be read): `lastGood` stays live.
            /// `bytes` are the bad content, so re-reading the same bytes changes nothing.
            case invalid(lastGood: WatchVersion?, problem: WatchProblem, bytes: FileBytes?)
            /// The file is gone: `lastGood` stays live, it is not emptied.
            case missing(lastGood: WatchVersion?)
            /// A writer has modified the file and still holds it open since `since` (milliseconds
            /// since the Unix epoch): what it holds is not a version yet, so `lastGood` stays live
            /// until the writer closes it.
            case writing(lastGood: WatchVersion?, since: Int64)

            /// The version subscribers see.
            var lastGood: WatchVersion? {
                switch self {
                case .loading: return nil
                case .live(let version): return version
                case .invalid(let lastGood, _, _), .missing(let lastGood), .writing(let lastGood, _): return lastGood
                }
            }
        }

        /// The watch's name, for the messages.
        let watch: String
        /// The history the cursors of new versions belong to.
        private(set) var epoch: Epoch
        /// The history the next valid version starts, as a snapshot rather than a changeset: a
        /// reload changed how records are identified (``startEpoch(_:)``).
        private(set) var pendingEpoch: Epoch?
        private(set) var state: State = .loading
        /// The last status published, so only changes are published.
        private(set) var publishedStatus: StatusMessage?
        /// The options the live version was parsed with, and those of the last parse: the same
        /// bytes read with other options (a reload changed them) are parsed again.
        private var liveOptions: ReadOptions?
        private var lastOptions: ReadOptions?
        /// The reader's warnings about the live version (keys that repeat), for the status.
        private var liveWarnings: [WatchProblem] = []
        /// Why the state of the watch cannot be saved (a full disk…), for the status: until it
        /// can, the last durable version stays live.
        private(set) var storageProblem: WatchProblem?
        /// The reader of the file's versions, which re-parses only the chunks of the file that
        /// changed since its last read (issue 19). What it keeps is bounded by the file: a chunk
        /// table of about 100 bytes per 64 KiB, and the records of the last list it read — the
        /// live version's, but for a save whose content equalled the live one.
        private var reader: IncrementalListReader?
        /// Whether the reader's last read was of the last good version's bytes, exactly: what
        /// it keeps of its next read is then the same as those bytes (``readsAfterLastGood``).
        /// False after content-equal bytes that publish nothing (the reader read other bytes),
        /// and while there is no reader or it forgot.
        private var readerFollowsLastGood = false
        /// The size of the reader's chunks: ``IncrementalListReader/defaultChunkSize``, smaller in
        /// tests so that small files have many chunks.
        private let chunkSize: Int
        /// Where the reader puts the storage of versions it moved on from and takes the storage
        /// to write the next one into (the tracker's; `nil`: new memory for every version).
        var buffers: ListBufferPool?
        /// Storage beyond a version's size that never makes the next read whole
        /// (``sharingSource(options:)``): ``storageSlack``, smaller in tests so that small files
        /// reach the bound.
        var storageSlack = StateMachine.storageSlack
        /// Where a long changeset line is written as it is encoded and mapped from
        /// (``ChangesetLineSpool``, issue 19): the watch's state directory when its saved bytes
        /// are mapped; `nil`: every line is an array.
        var lineSpoolDirectory: String?

        init(watch: String, epoch: Epoch, chunkSize: Int = IncrementalListReader.defaultChunkSize) {
            self.watch = watch
            self.epoch = epoch
            self.chunkSize = chunkSize
        }

        /// A machine that carries on from `version`, the last one published before a restart,
        /// which was read with `options`: the next read is diffed against it. With `reader`, the
        /// reader that read `version`'s bytes (``WatchStateStore/takeRestoredReader()``) when it
        /// reads in this machine's chunks and with `options`: the next read re-parses only what
        /// changed and shares the version's unchanged bytes and records, as after any version
        /// this machine read itself (issue 19: otherwise the first version after a restart is
        /// read and parsed whole, beside the restored one).
        init(
            watch: String, restoring version: WatchVersion, options: ReadOptions, reader: IncrementalListReader? = nil,
            chunkSize: Int = IncrementalListReader.defaultChunkSize
        ) {
            self.watch = watch
            self.chunkSize = chunkSize
            self.epoch = version.epoch
            self.state = .live(version)
            self.liveOptions = options
            self.lastOptions = options
            if let reader, reader.options == options, reader.chunkSize == chunkSize,
                reader.chunkBoundaries.last == version.list.fileBytes.count
            {
                self.reader = reader
                self.readerFollowsLastGood = true
            }
        }

        /// Records whether saving state fails, and returns the status to publish when it changed.
        mutating func noteStorageProblem(_ problem: WatchProblem?) -> StatusMessage? {
            self.storageProblem = problem
            let status = self.status
            guard status != self.publishedStatus else { return nil }
            self.publishedStatus = status
            self._checkInvariants()
            return status
        }

        /// Notes that a writer has held the file open since `since` (milliseconds since the Unix
        /// epoch) and modified it: the last good version stays live, and the status says
        /// `writing` until the next read. Returns the status to publish when it changed.
        mutating func noteWriting(since: Int64) -> StatusMessage? {
            if case .writing(_, since) = self.state {
                return nil
            }
            self.state = .writing(lastGood: self.state.lastGood, since: since)
            let status = self.status
            guard status != self.publishedStatus else { return nil }
            self.publishedStatus = status
            self._checkInvariants()
            return status
        }

        /// What the reader's last read did (tests: whether it kept chunks at the ends).
        var lastRead: IncrementalListReader.Statistics? { self.reader?.lastRead }

        /// Whether the last news of the file is that a writer holds it.
        var isWriting: Bool {
            if case .writing = self.state { return true }
            return false
        }

        /// Starts history `epoch` with the next valid version, which is published whole (subscribers
        /// get a snapshot) and never diffed against the last good one, whose records were
        /// identified differently. Until then the last good version stays live.
        mutating func startEpoch(_ epoch: Epoch) {
            self.pendingEpoch = epoch
        }

        /// Takes one read of the file and says what to publish; `nil` when nothing changed.
        ///
        /// - A valid version is diffed, as sectioned lists, against the last good one and
        ///   published as one changeset with the next `seq`, with the schema when it changed;
        ///   a content-equal version publishes nothing and leaves the published one live.
        /// - Invalid content keeps the last good version and publishes an `invalid` status with
        ///   the positioned error; the next valid version is diffed against the last good one.
        /// - A missing file publishes a `missing` status and keeps the list.
        /// - Bytes already read are parsed again when `options` differ from those they were read
        ///   with (a reload changed them); after ``startEpoch(_:)`` the next valid version starts
        ///   the new history.
        ///
        /// - Complexity: O(*n*) in the file's size (parse, diff, digest) for new content; O(*n*)
        ///   byte comparison for content already seen.
        /// With `withV1Digest` (a version 1 client follows the watch), a changeset line also
        /// carries the version 1 digest (`digest_v1`), so that it is saved with it.
        ///
        /// `hashes`: the reader's chunk hashes taken while the bytes were read
        /// (``hashesWhileReading(options:)``), used only if they are of these bytes. `shared`: the
        /// stretches the read shared with the last good version (``sharingSource(options:)``),
        /// used only if that version is still the last good one and the reader's last read.
        mutating func ingest(
            _ read: Result<FileSnapshot, FileReadError>, options: ReadOptions, withV1Digest: Bool = false,
            hashes: IncrementalListReader.ReadHashes? = nil, shared: SharedRead? = nil
        ) -> WatchPublication? {
            let lastGood = self.state.lastGood
            var publication = WatchPublication()
            switch read {
            case .failure(.unstable):
                // Still being written: the watcher announces it again once it settles.
                return nil
            case .failure(let error):
                self.state = .invalid(lastGood: lastGood, problem: WatchProblem(message: error.description), bytes: nil)
                publication.isInvalidRead = true
            case .success(.missing):
                self.state = .missing(lastGood: lastGood)
            case .success(.present(let read, _)):
                let bytes = self.compacted(read)
                let shared = shared.flatMap { self.usableStretches($0, options: options) }
                // Bytes equal to the last good version's leave it live; the reader's chunk hashes,
                // or the stretches the read shared, tell most changed bytes from them without
                // comparing the two files.
                if let lastGood, options == self.liveOptions, self.pendingEpoch == nil,
                    self.mayBeBytes(of: lastGood, bytes, hashes: hashes, shared: shared),
                    lastGood.list.fileBytes == bytes
                {
                    self.state = .live(lastGood)
                } else if case .invalid(_, _, let badBytes?) = self.state, badBytes == bytes, options == self.lastOptions {
                    return nil
                } else {
                    self.lastOptions = options
                    do {
                        let list = try self.read(bytes, options: options, hashes: hashes, shared: shared)
                        publication = self.publish(
                            list, after: lastGood, withV1Digest: withV1Digest, known: self.knownEqualEnds(of: list, after: lastGood),
                            unchangedBytes: self.unchangedBytes(after: lastGood))
                        // A new version is the reader's last read; content-equal bytes leave the last good one live.
                        self.readerFollowsLastGood = publication.version != nil
                        self.liveOptions = options
                        self.liveWarnings = list.warnings(keyed: !options.key.isEmpty).map(WatchProblem.init)
                    } catch {
                        self.readerFollowsLastGood = false
                        self.state = .invalid(lastGood: lastGood, problem: WatchProblem(error), bytes: bytes)
                        publication.isInvalidRead = true
                    }
                }
            }
            let status = self.status
            if status != self.publishedStatus {
                publication.status = status
                self.publishedStatus = status
            }
            self._checkInvariants()
            return publication.isEmpty ? nil : publication
        }

        /// `bytes` read with `options`: exactly ``ListReader``'s list or error, re-parsing only what
        /// changed since the last read with the same options.
        private mutating func read(
            _ bytes: FileBytes, options: ReadOptions, hashes: IncrementalListReader.ReadHashes?, shared: SharedStretches?
        ) throws(ListFormatError) -> ParsedList {
            var reader = self.reader.flatMap { $0.options == options ? $0 : nil } ?? IncrementalListReader(options: options, chunkSize: self.chunkSize)
            defer { self.reader = reader }
            return try reader.read(bytes: bytes, shared: shared.map { ($0.prefix, $0.suffix) }, recycling: self.buffers, hashes: hashes)
        }

        /// What the next read of the file may share with the last good version
        /// (``FileTracker/read(_:check:completeLinesOnly:hashes:unchanged:sharing:pool:)``): its
        /// bytes and the reader's chunk boundaries in them — when the reader's last read was
        /// exactly those bytes, with `options`. Nil otherwise, and when the last good version's
        /// storage holds more than a quarter of its size beyond it (stretches of versions long
        /// replaced, kept alive by the pieces still shared): the next read is then whole, into
        /// one new array, and the old storage goes once nothing serves it any more.
        func sharingSource(options: ReadOptions) -> SharingSource? {
            guard self.readerFollowsLastGood, self.pendingEpoch == nil, let reader = self.reader, reader.options == options,
                let lastGood = self.state.lastGood
            else { return nil }
            let boundaries = reader.chunkBoundaries
            let bytes = lastGood.list.fileBytes
            guard !boundaries.isEmpty, bytes.storageByteCount <= self.storageBound(ofSize: bytes.count) else { return nil }
            return SharingSource(bytes: bytes, boundaries: boundaries, version: lastGood.cursor)
        }

        /// Holds the live version, `cursor`, over `bytes` and `records` (`nil`: as it holds them)
        /// — the same held otherwise: mapped from the state files that saved them (issue 19,
        /// ``WatchStateStore/mappedLiveBytes``) and from the watch's records file
        /// (``SavedRecordsFile``) — and has the reader keep them too when it read that version,
        /// so the next read shares its ends with them and those in memory go. Returns the version
        /// now live; `nil` when `cursor` is not live or there is nothing to hold (nothing changes).
        mutating func holdLive(bytes: FileBytes?, records: ListRecords?, of cursor: Cursor) -> WatchVersion? {
            guard bytes != nil || records != nil, case .live(let version) = self.state, version.cursor == cursor,
                bytes.map({ version.list.fileBytes.count == $0.count }) ?? true,
                records.map({ version.list.linearRecords?.count == $0.count }) ?? true
            else { return nil }
            let held = WatchVersion(version, holding: bytes, records: records)
            self.state = .live(held)
            if self.readerFollowsLastGood {
                self.reader?.hold(bytes, records: records)
            }
            return held
        }

        /// The most storage a version of `size` bytes keeps alive before it is compacted
        /// (``compacted(_:)``) or the next read is whole (``sharingSource(options:)``): a quarter
        /// beyond its size, and the slack.
        private func storageBound(ofSize size: Int) -> Int {
            size + size / 4 + self.storageSlack
        }

        /// `bytes` as they were read, or in one new array of their size when their pieces keep
        /// more storage alive than ``storageBound(ofSize:)``: a large change that shares a few
        /// bytes at the ends (a header) would otherwise keep the whole storage of the version
        /// before it alive for as long as it is live, and stretches of versions long replaced
        /// would pile up. The copy costs what the whole read it replaces would have; what the read
        /// shared still says which ends are the last good version's bytes.
        private func compacted(_ bytes: FileBytes) -> FileBytes {
            guard !bytes.isContiguous, bytes.storageByteCount > self.storageBound(ofSize: bytes.count) else { return bytes }
            return FileBytes(bytes.array)
        }

        /// Storage beyond a version's size that never makes the next read whole: what rounding
        /// an array's capacity up (to huge pages) may add.
        static let storageSlack = 4 << 20

        /// `shared` when it was read after the version the reader read last, which is still the
        /// last good one, with the reader's options: only then are its stretches that version's.
        private func usableStretches(_ shared: SharedRead, options: ReadOptions) -> SharedStretches? {
            guard self.readerFollowsLastGood, self.pendingEpoch == nil, self.reader?.options == options,
                self.state.lastGood?.cursor == shared.previous
            else { return nil }
            return shared.stretches
        }

        /// What the next read of the file should hash as its bytes come in, for the reader that
        /// reads them with `options` (nil: no reader with them yet, or nothing to hash).
        func hashesWhileReading(options: ReadOptions) -> IncrementalListReader.ReadHashes? {
            guard let reader = self.reader, reader.options == options else { return nil }
            return reader.hashesWhileReading()
        }

        /// Whether `bytes` may be `lastGood`'s: false when the reader, which follows its bytes,
        /// finds another length or a chunk whose hash differs (so the bytes differ), without
        /// comparing the files; true when they must be compared.
        /// With `shared`, the answer is known: the bytes are `lastGood`'s exactly when they are
        /// shared whole.
        private func mayBeBytes(
            of lastGood: WatchVersion, _ bytes: FileBytes, hashes: IncrementalListReader.ReadHashes?, shared: SharedStretches?
        ) -> Bool {
            if let shared {
                return shared.prefix == bytes.count && bytes.count == lastGood.list.fileBytes.count
            }
            // (Bytes in pieces are compared as they are; so are mapped ones — read as an array
            // they would be copied whole, and the comparison of the same mapping is O(1).)
            guard self.readerFollowsLastGood, let reader = self.reader, bytes.isContiguous, !bytes.holdsMappings else { return true }
            return reader.mayBePreviousBytes(bytes.array, hashes: hashes)
        }

        /// The bytes the reader's last read kept at both ends from `lastGood`'s, when it read
        /// incrementally after them: what the state's journal entry need not compare again.
        private func unchangedBytes(after lastGood: WatchVersion?) -> UnchangedByteEnds? {
            guard let lastGood, self.readerFollowsLastGood, let read = self.reader?.lastRead, read.wasIncremental else { return nil }
            return UnchangedByteEnds(previous: lastGood.cursor, prefix: read.keptPrefixByteCount, suffix: read.keptSuffixByteCount)
        }

        /// What the reader's last read knows of `list` against `lastGood`: the records it kept
        /// from the previous version's chunks at both ends. The reader's previous list is always
        /// `lastGood`'s or one content-equal to it (an equal version publishes nothing and leaves
        /// `lastGood` live; a failed read makes the reader forget, and a new reader, for new
        /// options or after a restore, reads everything). Only for lists without sections, whose
        /// records the diff takes in file order.
        private func knownEqualEnds(of list: ParsedList, after lastGood: WatchVersion?) -> KnownEqualEnds {
            guard let lastGood, let read = self.reader?.lastRead, read.wasIncremental, !list.isSectioned, !lastGood.list.isSectioned
            else { return .nothing }
            return KnownEqualEnds(
                prefix: read.keptPrefixRecordCount, suffix: read.keptSuffixRecordCount,
                identifiersAreUnique: list.report.duplicateCount == 0 && lastGood.list.report.duplicateCount == 0)
        }

        /// Makes `list` the live version and returns what publishes it; `known` is what the
        /// reader knows of its records against `lastGood`'s (the diff need not find it again).
        private mutating func publish(
            _ list: ParsedList, after lastGood: WatchVersion?, withV1Digest: Bool, known: KnownEqualEnds = .nothing,
            unchangedBytes: UnchangedByteEnds? = nil
        ) -> WatchPublication {
            if let epoch = self.pendingEpoch {
                // A new history: its first version follows the last good one's `seq`, so a
                // subscriber's position lands on it and finds no changeset: it gets a snapshot.
                self.epoch = epoch
                self.pendingEpoch = nil
                let version = WatchVersion(epoch: epoch, seq: lastGood.map { $0.seq + 1 } ?? 0, list: list)
                self.state = .live(version)
                return WatchPublication(version: version)
            }
            guard let lastGood else {
                let version = WatchVersion(epoch: self.epoch, seq: 0, list: list)
                self.state = .live(version)
                return WatchPublication(version: version)
            }
            let changes = Self.changes(from: lastGood.list, to: list, known: known)
            let schema = SchemaUpdate(from: lastGood.list, to: list)
            guard !changes.isEmpty || schema != nil else {
                // Content-equal (ignored fields, JSON spacing or member order, CSV quoting): what
                // was published stays, values and all, so snapshots show what mirrors hold.
                self.state = .live(lastGood)
                return WatchPublication()
            }
            let version = WatchVersion(
                epoch: self.epoch, seq: lastGood.seq + 1, list: list, following: lastGood, known: known, unchangedBytes: unchangedBytes)
            self.state = .live(version)
            // The line carries the version 2 digest; a version 1 subscriber gets a copy with the
            // version 1 digest in its place (``WatchFeed/next(after:digestVersion:)``), which
            // the line carries too while version 1 clients follow the watch (O(n) then).
            let line = changes.encodedLine(
                watch: self.watch, cursor: version.cursor, digest: version.digest, v1Digest: withV1Digest ? version.v1Digest : nil, schema: schema,
                spoolDirectory: self.lineSpoolDirectory)
            return WatchPublication(version: version, changesetLine: line, changes: changes.counts)
        }

        /// The changeset from `source` to `target`, the lists of two versions, with what `known`
        /// says of their records: for two linear lists, computed on their records as
        /// ``ListFormats/ListRecords`` with only the middle between the known ends copied
        /// (`StagedChangeset(middlesOf:to:section:knownEqualEnds:)`: the same changeset, line and
        /// counts as the sections' path, which every other pair takes).
        private static func changes(from source: ParsedList, to target: ParsedList, known: KnownEqualEnds) -> VersionChanges {
            if let sourceRecords = source.linearRecords, let targetRecords = target.linearRecords {
                let changeset = StagedChangeset(middlesOf: sourceRecords, to: targetRecords, section: 0, knownEqualEnds: known)
                return VersionChanges(
                    isEmpty: changeset.isEmpty, counts: RecordChanges(linear: changeset),
                    line: { watch, cursor, digest, v1Digest, schema, spill in
                        ServerMessage.encodedChangeset(
                            watch: watch, cursor: cursor, digest: digest, v1Digest: v1Digest, schema: schema, changeset: changeset,
                            source: source, sourceRecords: sourceRecords, target: target, targetRecords: targetRecords, spill: spill)
                    })
            }
            let sourceSections = source.sections
            let changeset = StagedChangeset(source: sourceSections, target: target.sections, knownEqualEnds: known)
            return VersionChanges(
                isEmpty: changeset.isEmpty, counts: RecordChanges(changeset, source: sourceSections),
                line: { watch, cursor, digest, v1Digest, schema, spill in
                    ServerMessage.encodedChangeset(
                        watch: watch, cursor: cursor, digest: digest, v1Digest: v1Digest, schema: schema, changeset: changeset,
                        source: source, target: target, spill: spill)
                })
        }

        /// The status the current state implies, with the storage problem among its warnings.
        var status: StatusMessage {
            var status = self.fileStatus
            if let storageProblem { status.warnings.append(storageProblem) }
            return status
        }

        /// The status the file's state implies.
        private var fileStatus: StatusMessage {
            switch self.state {
            case .loading:
                return StatusMessage(watch: self.watch, state: .loading)
            case .live:
                return StatusMessage(watch: self.watch, state: .ok, warnings: self.liveWarnings)
            case .invalid(_, let problem, _):
                return StatusMessage(watch: self.watch, state: .invalid, error: problem)
            case .missing:
                return StatusMessage(watch: self.watch, state: .missing, error: WatchProblem(message: "the file does not exist"))
            case .writing(_, let since):
                return StatusMessage(watch: self.watch, state: .writing, since: since)
            }
        }

        /// Checks that what was published matches the state (debug builds only).
        func _checkInvariants() {
            #if DEBUG
            if case .loading = self.state {
                // Only a storage problem is published before the first read.
                precondition(self.publishedStatus == nil || self.publishedStatus == self.status, "a loading tracker published a status")
            } else {
                precondition(self.publishedStatus == self.status, "the published status is not the state's")
            }
            if let lastGood = self.state.lastGood {
                precondition(lastGood.epoch == self.epoch, "the live version is not of the current epoch")
            }
            #endif
        }
    }
}
