import ListDiff
import ListFormats

extension ServerMessage {
    /// The message as one line of JSON, `\n` included.
    ///
    /// - Complexity: O(*n*) in the size of the line.
    public func encoded() -> [UInt8] {
        switch self {
        case .hello(let hello):
            var writer = JSONLineWriter(type: self.type)
            writer.member("protocol", hello.protocolVersion)
            writer.member("server", hello.server)
            writer.member("instance", hello.instance.description)
            writer.watches(hello.watches)
            return writer.finish()
        case .reply(let reply):
            var writer = JSONLineWriter(type: self.type)
            writer.requestID(reply.id)
            writer.member("request", reply.result.request)
            switch reply.result {
            case .list(let watches):
                writer.watches(watches)
            case .subscribed(let subscription):
                writer.member("watch", subscription.watch)
                writer.member("mode", subscription.mode.rawValue)
                writer.cursor("cursor", subscription.cursor)
                if let reason = subscription.reason {
                    writer.member("reason", reason.rawValue)
                }
            case .unsubscribed(let watch):
                writer.member("watch", watch)
            case .pong:
                break
            case .metrics(let exposition):
                writer.member("text", exposition)
            }
            return writer.finish()
        case .error(let error):
            var writer = JSONLineWriter(type: self.type)
            writer.requestID(error.id)
            writer.member("code", error.code.rawValue)
            writer.member("message", error.message)
            return writer.finish()
        case .snapshot(let chunk):
            var writer = JSONLineWriter.snapshotHeader(chunk.header)
            writer.array("sections") { array in
                for section in chunk.sections {
                    array.objectElement { object in
                        object.sectionHeader(index: section.index, model: section.section.model, modelHash: section.section.hash)
                        object.array("records") { records in
                            for record in section.records {
                                records.record(value: record.value, hash: record.hash)
                            }
                        }
                    }
                }
            }
            return writer.finishSnapshot(last: chunk.last, digest: chunk.digest)
        case .changeset(let changeset):
            return Self.encodedChangeset(
                watch: changeset.watch, cursor: changeset.cursor, digest: changeset.digest, schema: changeset.schema,
                stagesJSON: ChangesetEncoder.encode(changeset.stages)
            )
        case .changesetPart(let part):
            // Laid out as ``ChangesetParts`` cuts a line.
            var writer = JSONLineWriter(type: self.type, push: true)
            writer.member("watch", part.watch)
            writer.member("cursor", part.cursor.description)
            writer.member("prev_seq", part.prevSeq)
            writer.member("part", part.part)
            if part.continues {
                writer.member("continues", true)
            }
            writer.rawMember("stages", ChangesetEncoder.encode(part.stages))
            writer.member("last", part.last)
            if let digest = part.digest {
                writer.member("digest", digest.description)
            }
            if let schema = part.schema {
                writer.schemaUpdate(schema)
            }
            return writer.finish()
        case .status(let status):
            var writer = JSONLineWriter(type: self.type, push: true)
            writer.member("watch", status.watch)
            writer.member("state", status.state.rawValue)
            if let problem = status.error {
                writer.problem(problem)
            }
            writer.warnings(status.warnings)
            if let since = status.since {
                writer.member("since", since)
            }
            return writer.finish()
        case .heartbeat(let time):
            var writer = JSONLineWriter(type: self.type, push: true)
            writer.member("time", time)
            return writer.finish()
        case .goodbye(let reason):
            var writer = JSONLineWriter(type: self.type, push: true)
            writer.member("reason", reason.rawValue)
            return writer.finish()
        }
    }

    /// A `changeset` line whose `stages` are already encoded JSON, as `ChangesetEncoder` of
    /// `ListFormats` writes them: the server's path, which encodes each changeset once.
    ///
    /// `prev_seq` is `cursor.seq - 1`; `cursor.seq` must not be 0 (version 0 is a snapshot).
    ///
    /// - Complexity: O(*n*) in the size of the line.
    ///
    /// With `v1Digest` (a server speaking protocol version 2 whose `digest` is the version 2
    /// one), the line also carries `digest_v1` right after `digest`, which clients ignore and
    /// ``version1Line(of:v1Digest:)`` turns back into a version 1 line.
    public static func encodedChangeset(
        watch: String, cursor: Cursor, digest: ListDigest, v1Digest: ListDigest? = nil, schema: SchemaUpdate?, stagesJSON: [UInt8]
    ) -> [UInt8] {
        encodedChangeset(
            watch: watch, cursor: cursor, digest: digest, v1Digest: v1Digest, schema: schema, stagesByteCount: stagesJSON.count
        ) { $0.append(contentsOf: stagesJSON) }
    }

    /// A `changeset` line whose `stages` are the encoding of `changeset`, from `source`'s
    /// sections to `target`'s, written straight into the line from the records' bytes — no
    /// value per record and no copy of the stages beside the line, which is sized ahead by an
    /// estimate (issue 19: a change of every row) — the bytes
    /// ``encodedChangeset(watch:cursor:digest:v1Digest:schema:stagesJSON:)`` writes for
    /// `ChangesetEncoder.encode(changeset, source:target:)`: the server's path.
    ///
    /// With `spill`, the line's bytes go to it as they are written, each time they reach its
    /// threshold (``LineSpill``), and what is returned is the rest of the line: memory holds a
    /// bounded stretch of a line of any length (issue 19).
    ///
    /// - Complexity: O(*n*) in the size of the line.
    public static func encodedChangeset(
        watch: String, cursor: Cursor, digest: ListDigest, v1Digest: ListDigest? = nil, schema: SchemaUpdate?,
        changeset: StagedChangeset<[ArraySection<SectionModel, ListRecord>]>, source: ParsedList, target: ParsedList,
        spill: (any LineSpill)? = nil
    ) -> [UInt8] {
        let contents = ChangesetEncoder.contents(of: changeset, source: source, target: target)
        return encodedChangeset(
            watch: watch, cursor: cursor, digest: digest, v1Digest: v1Digest, schema: schema,
            stagesByteCount: ChangesetEncoder.estimatedByteCount(of: contents, target: target), spill: spill
        ) { ChangesetEncoder.append(contents, to: &$0, spill: spill) }
    }

    /// A `changeset` line whose `stages` are the encoding of a linear `changeset` from
    /// `sourceRecords`, the records of `source`, to `targetRecords`, those of `target`, held in
    /// any collection (``ListFormats/ListRecords``: runs shared between versions), written
    /// straight into the line from the records' bytes as
    /// ``encodedChangeset(watch:cursor:digest:v1Digest:schema:changeset:source:target:)`` writes
    /// those of the sections' path: the same bytes for the same changes (and with `spill`, as
    /// that one hands them over).
    ///
    /// - Complexity: O(*n*) in the size of the line.
    public static func encodedChangeset<Records: RangeReplaceableCollection & RandomAccessCollection>(
        watch: String, cursor: Cursor, digest: ListDigest, v1Digest: ListDigest? = nil, schema: SchemaUpdate?,
        changeset: StagedChangeset<Records>, source: ParsedList, sourceRecords: Records, target: ParsedList, targetRecords: Records,
        spill: (any LineSpill)? = nil
    ) -> [UInt8] where Records.Element == ListRecord, Records.Index == Int {
        let contents = ChangesetEncoder.contents(
            of: changeset, source: source, sourceRecords: sourceRecords, target: target, targetRecords: targetRecords)
        return encodedChangeset(
            watch: watch, cursor: cursor, digest: digest, v1Digest: v1Digest, schema: schema,
            stagesByteCount: ChangesetEncoder.estimatedByteCount(of: contents, target: target), spill: spill
        ) { ChangesetEncoder.append(contents, to: &$0, spill: spill) }
    }

    /// A `changeset` line whose `stages` `writeStages` appends, in a line sized for
    /// `stagesByteCount` bytes of them — or, with `spill`, for a little over its threshold: the
    /// bytes past it go to the spill as they are written.
    private static func encodedChangeset(
        watch: String, cursor: Cursor, digest: ListDigest, v1Digest: ListDigest?, schema: SchemaUpdate?, stagesByteCount: Int,
        spill: (any LineSpill)? = nil, writeStages: (inout [UInt8]) -> Void
    ) -> [UInt8] {
        precondition(cursor.seq > 0, "version 0 has no changeset")
        let capacity = spill.map { min(stagesByteCount, $0.threshold + $0.threshold / 4) } ?? stagesByteCount
        var writer = JSONLineWriter(type: "changeset", push: true, capacity: capacity + 256)
        writer.member("watch", watch)
        writer.member("cursor", cursor.description)
        writer.member("prev_seq", cursor.seq - 1)
        writer.rawMember("stages", writtenBy: writeStages)
        writer.member("digest", digest.description)
        if let v1Digest {
            writer.member(ServerMessage.v1DigestMember, v1Digest.description)
        }
        if let schema {
            writer.schemaUpdate(schema)
        }
        return writer.finish()
    }
}

extension SnapshotChunk {
    /// The fields every chunk of one snapshot shares.
    struct Header {
        var watch: String
        var cursor: Cursor
        var chunk: Int
        var fresh: Bool
        var sectioned: Bool
        var schema: ListSchema
    }

    var header: Header {
        Header(watch: self.watch, cursor: self.cursor, chunk: self.chunk, fresh: self.fresh, sectioned: self.sectioned, schema: self.schema)
    }
}

extension JSONLineWriter {
    /// A snapshot line up to its `sections`, which the caller writes next.
    static func snapshotHeader(_ header: SnapshotChunk.Header, capacity: Int = 256) -> JSONLineWriter {
        var writer = JSONLineWriter(type: "snapshot", push: true, capacity: capacity)
        writer.member("watch", header.watch)
        writer.member("cursor", header.cursor.description)
        writer.member("chunk", header.chunk)
        writer.member("fresh", header.fresh)
        writer.member("sectioned", header.sectioned)
        writer.schema(header.schema)
        return writer
    }

    /// `index`, `model` and `hash` of a snapshot section.
    mutating func sectionHeader(index: Int, model: ListValue, modelHash: ContentHash) {
        self.member("index", index)
        self.member("model", model)
        self.member("hash", modelHash)
    }

    /// Ends a snapshot line after its `sections`.
    consuming func finishSnapshot(last: Bool, digest: ListDigest?) -> [UInt8] {
        self.member("last", last)
        if let digest {
            self.member("digest", digest.description)
        }
        return self.finish()
    }
}
