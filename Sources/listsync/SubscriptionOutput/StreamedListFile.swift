#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DurableFiles
import ListFormats
import ListSyncClient
import ListSyncProtocol

/// A snapshot written to its output as its chunks arrive, and made visible only once it is
/// verified: what `snapshot` and `mirror` write, so that a large list is never held whole in
/// memory as values *and* as bytes.
///
/// Chunk 0 starts a temporary file (beside the output file: `.NAME.listsync-PID`; for standard
/// output, an unlinked file in `$TMPDIR` or `/tmp`) and drops one begun before; each chunk's
/// records are written to it at once (``ListStreamWriter``, the bytes ``MirrorOutput`` writes for
/// the whole list). ``finish()`` closes the list when its last chunk verified; ``commit()`` then
/// flushes the file and renames it over the output (or copies it to standard output).
/// ``discard()`` — on a digest that does not match, a resync, a lost connection — removes it, and
/// the output stays as it was.
///
/// A CSV of a sectioned list cannot be streamed (whether the sections need a column of their own
/// depends on every record, ``ListWriter/addedSectionColumn(for:)``), nor a CSV of a list without
/// columns: those chunks' values are collected and written whole by ``MirrorOutput`` at
/// ``finish()`` — only when ``collects`` is set (`snapshot`, whose mirror keeps no list); else
/// (`mirror`, whose mirror keeps the list) ``isStreaming`` is false and the caller writes the
/// mirror whole as before.
final class StreamedListFile {
    /// Where the list goes.
    enum Destination {
        /// Replace this file atomically.
        case file(AtomicFileWriter)
        /// Print it on standard output.
        case standardOutput
    }

    /// What is being written.
    private enum Content {
        /// Nothing: no snapshot begun, or the last one finished or dropped.
        case idle
        /// Records written as they arrive; the index of the section written last (-1: none).
        case streaming(ListStreamWriter, section: Int)
        /// A list that cannot be streamed, collected as values (``collects``).
        case collecting(sectioned: Bool, columns: [String], sections: [ListDocument.Section])
        /// A list that cannot be streamed, left to the caller.
        case declined
        /// Complete and verified, waiting for ``commit()``.
        case finished
    }

    let destination: Destination
    let output: MirrorOutput
    /// Whether a list that cannot be streamed is collected (else declined).
    let collects: Bool

    private var content = Content.idle
    /// The temporary file, while a snapshot is written or finished.
    private var file: PendingReplacement?
    /// The unlinked spool of standard output, while a snapshot is written or finished.
    private var spool: Int32 = -1

    init(destination: Destination, output: MirrorOutput, collects: Bool) {
        self.destination = destination
        self.output = output
        self.collects = collects
    }

    deinit {
        self.discard()
    }

    /// Whether the snapshot begun by the last chunk 0 is written as it arrives.
    var isStreaming: Bool {
        switch self.content {
        case .streaming, .collecting, .finished: return true
        case .idle, .declined: return false
        }
    }

    /// Whether a complete, verified list waits for ``commit()``.
    var isFinished: Bool {
        if case .finished = self.content { return true }
        return false
    }

    /// Writes `chunk`'s records; chunk 0 starts over.
    ///
    /// - Throws: ``ClientFailure/data(_:)`` when the temporary file cannot be written.
    func receive(_ chunk: SnapshotChunk) throws(ClientFailure) {
        if chunk.chunk == 0 { try self.begin(chunk) }
        switch self.content {
        case .streaming(var writer, var section):
            self.content = .idle
            var bytes: [UInt8] = []
            for part in chunk.sections {
                if chunk.sectioned, part.index != section {
                    section = part.index
                    bytes += writer.beginSection(part.section.model)
                }
                bytes += writer.append(part.records.lazy.map(\.value))
            }
            try self.write(bytes)
            self.content = .streaming(writer, section: section)
        case .collecting(let sectioned, let columns, var sections):
            self.content = .idle
            for part in chunk.sections {
                if part.index == sections.count {
                    sections.append(ListDocument.Section(value: part.section.model, records: []))
                }
                sections[sections.count - 1].records += part.records.lazy.map(\.value)
            }
            self.content = .collecting(sectioned: sectioned, columns: columns, sections: sections)
        case .idle, .declined, .finished:
            break
        }
    }

    /// Ends the list after its last chunk verified.
    ///
    /// - Throws: ``ClientFailure/data(_:)`` when the file cannot be written,
    ///   ``ClientFailure/usage(_:)`` when the section column's name is taken (`snapshot`).
    func finish() throws(ClientFailure) {
        switch self.content {
        case .streaming(var writer, _):
            self.content = .idle
            try self.write(writer.finish())
            self.content = .finished
        case .collecting(let sectioned, let columns, let sections):
            self.content = .idle
            let document: ListDocument = sectioned ? .sections(sections) : .records(sections.first?.records ?? [])
            try self.write(try self.output.bytes(of: document, columns: columns))
            self.content = .finished
        case .idle, .declined, .finished:
            break
        }
    }

    /// Takes `bytes`, a whole list made otherwise (`--from nats`), as the finished list.
    ///
    /// - Throws: ``ClientFailure/data(_:)`` when the temporary file cannot be written.
    func replace(with bytes: [UInt8]) throws(ClientFailure) {
        self.discard()
        try self.open()
        try self.write(bytes)
        self.content = .finished
    }

    /// Makes the finished list the output: renames the temporary file over the file, or copies
    /// the spool to standard output. Nothing unless ``isFinished``.
    ///
    /// - Throws: ``ClientFailure/data(_:)`` when the file cannot be flushed or renamed.
    func commit() throws(ClientFailure) {
        guard self.isFinished else { return }
        self.content = .idle
        if let file = self.file {
            self.file = nil
            do {
                try file.commit()
            } catch {
                throw .data("cannot replace \(self.outputPath): \(error.described); it is left as it was")
            }
        } else if self.spool >= 0 {
            defer { self.closeSpool() }
            do {
                guard lseek(self.spool, 0, SEEK_SET) == 0 else { throw SystemCallError.lastError(of: "lseek") }
                try FileDescriptorIO.copyAll(from: self.spool, to: STDOUT_FILENO)
            } catch {
                throw .data("standard output: \(error)")
            }
        }
    }

    /// Drops the snapshot being written (or finished); the output stays as it was.
    func discard() {
        self.content = .idle
        self.file?.discard()
        self.file = nil
        self.closeSpool()
    }

    // MARK: Steps

    private func begin(_ chunk: SnapshotChunk) throws(ClientFailure) {
        self.discard()
        let format = self.output.format
        if case .csv = format, chunk.sectioned || chunk.schema.columns.isEmpty {
            guard self.collects else {
                self.content = .declined
                return
            }
            try self.open()
            self.content = .collecting(sectioned: chunk.sectioned, columns: chunk.schema.columns, sections: [])
        } else {
            var writer = ListStreamWriter(format: format, columns: chunk.schema.columns, sectioned: chunk.sectioned)
            try self.open()
            let header = writer.begin()
            self.content = .streaming(writer, section: -1)
            try self.write(header)
        }
    }

    /// The output file's path, for messages (standard output has none).
    private var outputPath: String {
        if case .file(let writer) = self.destination { return writer.path }
        return "standard output"
    }

    private func open() throws(ClientFailure) {
        switch self.destination {
        case .file(let writer):
            do {
                self.file = try PendingReplacement(writer.path, through: writer.temporaryPath, permissions: 0o666)
            } catch {
                throw .data("cannot write \(writer.path) (through its temporary file): \(error.described); it is left as it was")
            }
        case .standardOutput:
            let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            var template = Array("\(directory)/listsync-snapshot-XXXXXX".utf8CString)
            let descriptor = mkstemp(&template)
            guard descriptor >= 0 else {
                throw .data("\(SystemCallError.lastError(of: "mkstemp").on(directory, doing: "create a temporary file"))")
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            // Unlinked at once: nothing is left behind, however the process ends.
            _ = unlink(template)
            self.spool = descriptor
        }
    }

    private func write(_ bytes: [UInt8]) throws(ClientFailure) {
        if let file = self.file {
            do {
                try file.write(bytes)
            } catch {
                self.discard()
                throw .data("cannot write \(self.outputPath) (through its temporary file): \(error.described); it is left as it was")
            }
        } else if self.spool >= 0 {
            do {
                try FileDescriptorIO.writeAll(bytes, to: self.spool)
            } catch {
                self.discard()
                throw .data("a temporary file of the snapshot: \(error)")
            }
        }
    }

    private func closeSpool() {
        guard self.spool >= 0 else { return }
        close(self.spool)
        self.spool = -1
    }
}
