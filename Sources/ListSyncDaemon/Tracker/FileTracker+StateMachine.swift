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
            case invalid(lastGood: WatchVersion?, problem: WatchProblem, bytes: [UInt8]?)
            /// The file is gone: `lastGood` stays live, it is not emptied.
            case missing(lastGood: WatchVersion?)

            /// The version subscribers see.
            var lastGood: WatchVersion? {
                switch self {
                case .loading: return nil
                case .live(let version): return version
                case .invalid(let lastGood, _, _), .missing(let lastGood): return lastGood
                }
            }
        }

        /// The watch's name, for the messages.
        let watch: String
        /// The server history the cursors belong to.
        let epoch: Epoch
        private(set) var state: State = .loading
        /// The last status published, so only changes are published.
        private(set) var publishedStatus: StatusMessage?

        init(watch: String, epoch: Epoch) {
            self.watch = watch
            self.epoch = epoch
        }

        /// Takes one read of the file and says what to publish; `nil` when nothing changed.
        ///
        /// - A valid version is diffed, as sectioned lists, against the last good one and
        ///   published as one changeset with the next `seq`, with the schema when it changed;
        ///   a content-equal version publishes nothing and leaves the published one live.
        /// - Invalid content keeps the last good version and publishes an `invalid` status with
        ///   the positioned error; the next valid version is diffed against the last good one.
        /// - A missing file publishes a `missing` status and keeps the list.
        ///
        /// - Complexity: O(*n*) in the file's size (parse, diff, digest) for new content; O(*n*)
        ///   byte comparison for content already seen.
        mutating func ingest(_ read: Result<FileSnapshot, FileReadError>, options: ReadOptions) -> WatchPublication? {
            let lastGood = self.state.lastGood
            var publication = WatchPublication()
            switch read {
            case .failure(.unstable):
                // Still being written: the watcher announces it again once it settles.
                return nil
            case .failure(let error):
                self.state = .invalid(lastGood: lastGood, problem: WatchProblem(message: error.description), bytes: nil)
            case .success(.missing):
                self.state = .missing(lastGood: lastGood)
            case .success(.present(let bytes, _)):
                if let lastGood, lastGood.list.bytes == bytes {
                    self.state = .live(lastGood)
                } else if case .invalid(_, _, let badBytes?) = self.state, badBytes == bytes {
                    return nil
                } else {
                    do {
                        let list = try ListReader(options: options).read(bytes: bytes)
                        publication = self.publish(list, after: lastGood)
                    } catch {
                        self.state = .invalid(lastGood: lastGood, problem: WatchProblem(error), bytes: bytes)
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

        /// Makes `list` the live version and returns what publishes it.
        private mutating func publish(_ list: ParsedList, after lastGood: WatchVersion?) -> WatchPublication {
            guard let lastGood else {
                let version = WatchVersion(seq: 0, list: list)
                self.state = .live(version)
                return WatchPublication(version: version)
            }
            let sections = list.sections
            let changeset = StagedChangeset(source: lastGood.sections, target: sections)
            let schema = SchemaUpdate(from: lastGood.list, to: list)
            guard !changeset.isEmpty || schema != nil else {
                // Content-equal (ignored fields, JSON spacing or member order, CSV quoting): what
                // was published stays, values and all, so snapshots show what mirrors hold.
                self.state = .live(lastGood)
                return WatchPublication()
            }
            let version = WatchVersion(seq: lastGood.seq + 1, list: list)
            self.state = .live(version)
            let line = ServerMessage.encodedChangeset(
                watch: self.watch, cursor: Cursor(epoch: self.epoch, seq: version.seq), digest: version.digest, schema: schema,
                stagesJSON: ChangesetEncoder.encode(changeset, source: lastGood.list, target: list))
            return WatchPublication(version: version, changesetLine: line)
        }

        /// The status the current state implies.
        var status: StatusMessage {
            switch self.state {
            case .loading:
                return StatusMessage(watch: self.watch, state: .loading)
            case .live:
                return StatusMessage(watch: self.watch, state: .ok)
            case .invalid(_, let problem, _):
                return StatusMessage(watch: self.watch, state: .invalid, error: problem)
            case .missing:
                return StatusMessage(watch: self.watch, state: .missing, error: WatchProblem(message: "the file does not exist"))
            }
        }

        /// Checks that what was published matches the state (debug builds only).
        func _checkInvariants() {
            #if DEBUG
            if case .loading = self.state {
                precondition(self.publishedStatus == nil, "a loading tracker published a status")
            } else {
                precondition(self.publishedStatus == self.status, "the published status is not the state's")
            }
            #endif
        }
    }
}
