import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CFileSync

/// The few file operations the state store needs, each durable when it returns: contents are
/// `fsync`ed (or `fdatasync`ed), and a rename or a new file is followed by an `fsync` of its
/// directory.
///
/// Every failure is a ``StateFileError`` naming the file and the call, so a full disk or an
/// unreadable file is reported as such.
enum StateFile {
    /// The content of the file at `path` from byte `offset`, at most `count` bytes (fewer at
    /// its end); `nil` when there is no file.
    static func read(_ path: String, from offset: Int = 0, count: Int = .max) throws(StateFileError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .failed(path, .lastError(of: "open"))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .failed(path, .lastError(of: "fstat")) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path) }
        let wanted = max(0, min(count, Int(status.st_size) - offset))
        var failure: SystemCallError?
        // Not zeroed first, and in 2 MiB pages: a checkpoint's list may be 100 MB, read at every restart.
        let bytes = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            HugePages.advise(base, byteCount: wanted)
            while initialized < wanted {
                let read = pread(descriptor, base + initialized, wanted - initialized, off_t(offset + initialized))
                if read > 0 {
                    initialized += read
                } else if read == 0 {
                    return  // The file shrank meanwhile.
                } else if errno != EINTR {
                    failure = .lastError(of: "read")
                    return
                }
            }
        }
        if let failure { throw .failed(path, failure) }
        return bytes
    }

    /// Replaces the file at `path` with `parts`, atomically: they are written to `path.tmp`,
    /// `fsync`ed, renamed over `path`, and the directory is `fsync`ed. A crash at any instant
    /// leaves either the old file or the new one (and perhaps a stale `.tmp`).
    ///
    /// With a `copying` range, the file is `parts`, then those bytes of the file now at `path`
    /// (copied by the kernel, file to file, never through memory: a log's kept history may be
    /// hundreds of MiB), then `trailingParts`; with `zeroFillingUpTo`, then the zeros of a new
    /// ``ZeroFilledAppendRegion`` within that many bytes (none on a full disk).
    ///
    /// - Returns: The new file's size.
    @discardableResult
    static func replace(
        _ path: String, with parts: [[UInt8]], copying kept: Range<Int> = 0..<0, then trailingParts: [FileBytes] = [],
        zeroFillingUpTo limit: Int? = nil, kind: String, crashPoints: StateCrashPoints
    ) throws(StateFileError) -> Int {
        let content = parts.reduce(kept.count) { $0 + $1.count } + trailingParts.reduce(0) { $0 + $1.count }
        var region = ZeroFilledAppendRegion(end: content, size: content)
        try DurableFile.replace(
            path, through: path + ".tmp", permissions: 0o600,
            writing: { descriptor throws(StateFileError) in
                let temporary = path + ".tmp"
                for part in parts {
                    try StateFile.write(part, to: descriptor, path: temporary)
                }
                if !kept.isEmpty {
                    try StateFile.copy(kept, of: path, to: descriptor, path: temporary)
                }
                for part in trailingParts {
                    try StateFile.write(part, to: descriptor, path: temporary)
                }
                if let limit {
                    region = ZeroFilledAppendRegion(newFileOf: content, limit: limit)
                    do throws(SystemCallError) {
                        try region.writeZeros(to: descriptor)
                    } catch {
                        throw .failed(temporary, error)
                    }
                }
            },
            reached: { crashPoints.reach("\(kind)-\($0.crashPointName)") },
            failure: StateFileError.failure
        )
        return region.size
    }

    /// A file overwritten in place, from its start (a checkpoint slot): the first parts can be
    /// written while what ends the file is still being computed, and one `fdatasync` makes the
    /// whole durable. A crash before it returns may leave the file torn (part old, part new):
    /// its content must say by checksums whether it is whole.
    struct Overwrite: Sendable {
        let path: String
        private let descriptor: Int32
        /// How many bytes the first parts took.
        private let written: Int
        /// Whether the file was created here: its directory entry must be made durable.
        private let created: Bool

        /// Starts overwriting the file at `path` (created when missing) with `parts` (each written
        /// piece by piece from its storage: a version in pieces is not gathered into a buffer),
        /// and asks the kernel to start writing them to the disk, without waiting. When that fails the file is
        /// removed: what it held is overwritten already, and a torn file left behind would read
        /// as damage at the next start (and hold space a full disk needs).
        init(of path: String, writing parts: [FileBytes]) throws(StateFileError) {
            self.path = path
            (self.descriptor, self.created) = try Self.openOrCreate(path, access: O_WRONLY)
            do throws(StateFileError) {
                for part in parts {
                    try StateFile.write(part, to: self.descriptor, path: path)
                }
            } catch {
                close(self.descriptor)
                unlink(path)
                throw error
            }
            self.written = parts.reduce(0) { $0 + $1.count }
            _ = listsync_start_writeback(self.descriptor)
        }

        private init(path: String, descriptor: Int32, written: Int, created: Bool) {
            self.path = path
            self.descriptor = descriptor
            self.written = written
            self.created = created
        }

        /// Starts overwriting the file at `path` (created when missing) with bytes copied into
        /// it from elsewhere (``receivingDescriptor``, open for reading too, so the copy can be
        /// mapped): nothing is written yet; ``copied(_:after:)`` says what was. Issue 19: a
        /// watched file copied into a checkpoint slot inside the kernel, never whole in memory.
        init(receivingCopyAt path: String) throws(StateFileError) {
            let (descriptor, created) = try Self.openOrCreate(path, access: O_RDWR)
            self.init(path: path, descriptor: descriptor, written: 0, created: created)
        }

        /// Opens the file at `path` with `access` (`O_WRONLY`, `O_RDWR`), creating it (mode
        /// 0600) when missing; says whether it was created (its directory entry is then flushed
        /// with it).
        private static func openOrCreate(_ path: String, access: Int32) throws(StateFileError) -> (descriptor: Int32, created: Bool) {
            var descriptor = open(path, access | O_CLOEXEC)
            var created = false
            if descriptor < 0, errno == ENOENT {
                descriptor = open(path, access | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                created = true
            }
            guard descriptor >= 0 else { throw .failed(path, .lastError(of: "open")) }
            return (descriptor, created)
        }

        /// The descriptor the copy goes to (``init(receivingCopyAt:)``).
        var receivingDescriptor: Int32 { self.descriptor }

        /// The overwrite once `count` bytes were copied right after `leading`'s length: writes
        /// `leading` at the file's start, and asks the kernel to start writing it all out;
        /// ``finish(writing:newEntry:deferringFlush:kind:crashPoints:)`` writes what follows
        /// them. When the write fails the file is removed, as ``abandon()`` does.
        func copied(_ count: Int, after leading: [UInt8]) throws(StateFileError) -> Overwrite {
            do throws(SystemCallError) {
                try FileDescriptorIO.writeAll(leading, to: self.descriptor, at: 0)
            } catch {
                self.abandon()
                throw .failed(self.path, error)
            }
            guard lseek(self.descriptor, off_t(leading.count + count), SEEK_SET) >= 0 else {
                let error = SystemCallError.lastError(of: "lseek")
                self.abandon()
                throw .failed(self.path, error)
            }
            _ = listsync_start_writeback(self.descriptor)
            return Overwrite(path: self.path, descriptor: self.descriptor, written: leading.count + count, created: self.created)
        }

        /// Writes the last `parts`, cuts the file after them, and flushes it with one
        /// `fdatasync` (and its directory with an `fsync`, when `newEntry` — its entry may not be
        /// durable yet — or the file was created). When that fails the file is removed, as
        /// ``abandon()`` does.
        ///
        /// With `deferringFlush`, the file is written but not flushed: the caller flushes the
        /// returned ``UnflushedFile`` when it chooses (the directory, when its entry is new, is
        /// still `fsync`ed here); `nil` otherwise.
        @discardableResult
        func finish(
            writing parts: [FileBytes], newEntry: Bool, deferringFlush: Bool = false, kind: String, crashPoints: StateCrashPoints
        ) throws(StateFileError) -> UnflushedFile? {
            defer { close(self.descriptor) }
            var unflushed: UnflushedFile?
            do throws(StateFileError) {
                crashPoints.reach("\(kind)-started")
                for part in parts {
                    try StateFile.write(part, to: self.descriptor, path: self.path)
                }
                let length = parts.reduce(self.written) { $0 + $1.count }
                guard ftruncate(self.descriptor, off_t(length)) == 0 else { throw .failed(self.path, .lastError(of: "ftruncate")) }
                crashPoints.reach("\(kind)-written")
                if deferringFlush {
                    do throws(SystemCallError) {
                        unflushed = try UnflushedFile(duplicating: self.descriptor, path: self.path)
                    } catch {
                        throw .failed(self.path, error)
                    }
                } else {
                    guard fdatasync(self.descriptor) == 0 else { throw .failed(self.path, .lastError(of: "fdatasync")) }
                }
            } catch {
                unlink(self.path)
                throw error
            }
            if newEntry || self.created {
                try StateFile.syncDirectory(of: self.path)
            }
            if !deferringFlush { crashPoints.reach("\(kind)-synced") }
            return unflushed
        }

        /// Gives up: the version is not saved. The file is removed rather than left torn: it held
        /// the older of the two versions, overwritten already, so nothing is lost, and a clean
        /// restart finds no damage to report. (A crash before this leaves it torn, which its
        /// reader detects.)
        func abandon() {
            close(self.descriptor)
            unlink(self.path)
        }
    }

    /// Appends `bytes` to the file at `path` (which must exist) in its zero-filled `region`, and
    /// `fdatasync`s it (``ZeroFilledAppendRegion/append(_:to:limit:reached:failure:)``: the
    /// file's size stays within `limit`). When the write fails half-way, the file is left as it
    /// was, so it never ends in a torn record.
    ///
    /// With `deferringFlush`, the bytes are written but not flushed: the caller flushes the
    /// returned file when it chooses (``ZeroFilledAppendRegion/append(_:to:limit:deferringFlush:reached:failure:)``).
    @discardableResult
    static func append(
        _ bytes: FileBytes, to path: String, region: inout ZeroFilledAppendRegion, limit: Int, deferringFlush: Bool = false, kind: String,
        crashPoints: StateCrashPoints
    ) throws(StateFileError) -> UnflushedFile? {
        try region.append(
            bytes, to: path, limit: limit, deferringFlush: deferringFlush,
            reached: { crashPoints.reach("\(kind)-\($0.crashPointName)") },
            failure: StateFileError.failure
        )
    }

    /// The size of the file at `path`; `nil` when there is none.
    static func size(of path: String) throws(StateFileError) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw .failed(path, .lastError(of: "stat"))
        }
        return Int(status.st_size)
    }

    /// Appends the bytes `range` of the file at `source` to `descriptor` (the file `path`), with
    /// `copy_file_range`, or through a 1 MiB buffer where the kernel cannot copy.
    fileprivate static func copy(_ range: Range<Int>, of source: String, to descriptor: Int32, path: String) throws(StateFileError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .failed(source, .lastError(of: "open")) }
        defer { close(input) }
        var offset = Int64(range.lowerBound)
        var left = range.count
        while left > 0 {
            let copied = listsync_copy_file_range(input, &offset, descriptor, UInt(left))
            if copied > 0 {
                left -= copied
                continue
            }
            if copied == 0 { throw .failed(source, SystemCallError(call: "copy_file_range", code: EIO)) }
            if errno == EINTR { continue }
            guard [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP].contains(errno) else { throw .failed(path, .lastError(of: "copy_file_range")) }
            // The file systems cannot copy between them: through memory, a bounded piece at a time.
            while left > 0 {
                guard let piece = try StateFile.read(source, from: Int(offset), count: min(left, 1 << 20)), !piece.isEmpty else {
                    throw .failed(source, SystemCallError(call: "read", code: EIO))
                }
                try StateFile.write(piece, to: descriptor, path: path)
                offset += Int64(piece.count)
                left -= piece.count
            }
        }
    }

    /// Cuts the file at `path` to `length` bytes and `fsync`s it.
    static func truncate(_ path: String, to length: Int) throws(StateFileError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .failed(path, .lastError(of: "open")) }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw .failed(path, .lastError(of: "ftruncate")) }
        guard fsync(descriptor) == 0 else { throw .failed(path, .lastError(of: "fsync")) }
    }

    /// Creates the directory at `path` (and its parents) when missing, and makes each new one
    /// durable in its parent.
    static func createDirectory(_ path: String) throws(StateFileError) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o750) == 0 {
                try self.syncDirectory(of: prefix)
            } else if errno != EEXIST {
                throw .failed(prefix, .lastError(of: "mkdir"))
            }
        }
    }

    /// Renames the file at `path` to `path.damaged`, replacing an earlier one, so a damaged file
    /// can be examined but never accumulates. Returns whether it moved: `false` when there is no
    /// such file.
    @discardableResult
    static func moveAside(_ path: String) throws(StateFileError) -> Bool {
        guard rename(path, path + ".damaged") == 0 else {
            if errno == ENOENT { return false }
            throw .failed(path, .lastError(of: "rename"))
        }
        try self.syncDirectory(of: path)
        return true
    }

    /// Removes the file at `path`; a missing one is fine.
    static func remove(_ path: String) throws(StateFileError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw .failed(path, .lastError(of: "unlink")) }
    }

    /// Removes the directory at `path` and the files in it (state directories hold no subdirectories).
    static func removeDirectory(_ path: String) throws(StateFileError) {
        guard let directory = opendir(path) else {
            if errno == ENOENT { return }
            throw .failed(path, .lastError(of: "opendir"))
        }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(directory)
        for name in names {
            try self.remove(path + "/" + name)
        }
        guard rmdir(path) == 0 || errno == ENOENT else { throw .failed(path, .lastError(of: "rmdir")) }
    }

    /// `fsync`s the file at `path`, if there is one: what any process wrote to it is on the disk
    /// when this returns.
    static func sync(_ path: String) throws(StateFileError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return }
            throw .failed(path, .lastError(of: "open"))
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .failed(path, .lastError(of: "fsync")) }
    }

    /// `fsync`s the directory holding `path`, which makes a rename or a new entry in it durable.
    static func syncDirectory(of path: String) throws(StateFileError) {
        try DurableFile.syncDirectory(of: path, failure: StateFileError.failure)
    }

    fileprivate static func write(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(StateFileError) {
        do {
            try FileDescriptorIO.writeAll(bytes, to: descriptor)
        } catch {
            throw .failed(path, error)
        }
    }

    /// Writes `bytes` piece by piece from their storage (``FileDescriptorIO/writeAll(_:to:at:)``).
    fileprivate static func write(_ bytes: FileBytes, to descriptor: Int32, path: String) throws(StateFileError) {
        do {
            try FileDescriptorIO.writeAll(bytes, to: descriptor)
        } catch {
            throw .failed(path, error)
        }
    }
}
