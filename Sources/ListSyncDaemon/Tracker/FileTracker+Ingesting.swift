import DurableFiles
import FileWatching
import ListFormats
import NIOPosix

extension FileTracker {
    /// What a read turned into, before it is saved.
    struct Ingestion: Sendable {
        /// The machine once it took the read in; the tracker's own only after the save.
        var machine: StateMachine
        /// What to publish once the version is durable (`nil`: nothing changed).
        var publication: WatchPublication?
        /// New content already written to a free checkpoint slot (`nil`: the content is the
        /// live version's, or it could not be staged and the save writes it whole).
        var staged: WatchStateStore.StagedCheckpoint?
        /// When the parse began and the changeset line was encoded, on their thread (``VersionTimeline``).
        var started: ContinuousClock.Instant
        var ended: ContinuousClock.Instant
    }

    /// Takes `content` into a copy of `machine` on `pool` — parsing, diffing, encoding — while
    /// new content is written to a free checkpoint slot of `store` beside it. `hashes`: the
    /// reader's chunk hashes taken while `content` was read (``FileRead/hashes``). `copied`: the
    /// slot the read copied `content` into (``WatchStateStore/openSlotCopy()``): its checkpoint is
    /// staged from the copy (``WatchStateStore/stageCopiedCheckpoint(_:bytes:)``), or the copy
    /// abandoned when nothing is to be staged.
    func ingest(
        _ content: Result<FileSnapshot, FileReadError>, hashes: IncrementalListReader.ReadHashes? = nil, shared: SharedRead? = nil,
        copied: WatchStateStore.SlotCopy? = nil, into machine: StateMachine, staging store: WatchStateStore,
        watch: WatchConfiguration, pool: NIOThreadPool
    ) async throws -> Ingestion {
        let lastGood = machine.state.lastGood
        async let staging = pool.runIfActive { () -> WatchStateStore.StagedCheckpoint? in
            // (The bytes compared with the live version's only when a slot would be staged.)
            // Compared and written as they are held, in pieces: no copy of either version.
            guard case .success(.present(let bytes, _)) = content, store.stagesCheckpoints, lastGood.map({ $0.list.fileBytes != bytes }) ?? true
            else {
                copied?.abandon()
                return nil
            }
            if let copied { return try? store.stageCopiedCheckpoint(copied, bytes: bytes) }
            return try? store.stageCheckpoint(of: bytes)
        }
        let withV1Digest = self.feed.wantsV1Digests
        var ingestion = try await pool.runIfActive {
            self.ingestNow(content, hashes: hashes, shared: shared, into: machine, watch: watch, withV1Digest: withV1Digest)
        }
        ingestion.staged = try await staging
        return ingestion
    }

    /// Takes `content` into a copy of `machine` on the calling thread — parsing, diffing,
    /// encoding — with nothing staged. `hashes`: as for ``ingest(_:hashes:into:staging:watch:pool:)``.
    func ingestNow(
        _ content: Result<FileSnapshot, FileReadError>, hashes: IncrementalListReader.ReadHashes?, shared: SharedRead? = nil, into machine: StateMachine,
        watch: WatchConfiguration, withV1Digest: Bool
    ) -> Ingestion {
        var machine = machine
        let clock = ContinuousClock()
        let started = clock.now
        let publication = machine.ingest(content, options: watch.readOptions, withV1Digest: withV1Digest, hashes: hashes, shared: shared)
        let ended = clock.now
        // Timed when the content was parsed: a new version, or content that does not parse.
        if publication?.version != nil || publication?.isInvalidRead == true {
            self.feed.metrics?.diffDuration.record(started.duration(to: ended))
        }
        return Ingestion(machine: machine, publication: publication, staged: nil, started: started, ended: ended)
    }
}
