#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few file operations the state store needs, each durable when it returns: contents are
/// `fsync`ed, and a rename or a new file is followed by an `fsync` of its directory.
///
/// Every failure is a ``StateFileError`` naming the file and the call, so a full disk or an
/// unreadable file is reported as such.
enum StateFile {
    /// The whole content of the file at `path`; `nil` when there is none.
    static func read(_ path: String) throws(StateFileError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .failed(path, .lastError(of: "open"))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .failed(path, .lastError(of: "fstat")) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += chunk[..<count]
            } else if count == 0 {
                return bytes
            } else if errno != EINTR {
                throw .failed(path, .lastError(of: "read"))
            }
        }
    }

    /// Replaces the file at `path` with `parts`, atomically: they are written to `path.tmp`,
    /// `fsync`ed, renamed over `path`, and the directory is `fsync`ed. A crash at any instant
    /// leaves either the old file or the new one (and perhaps a stale `.tmp`).
    static func replace(_ path: String, with parts: [[UInt8]], kind: String, crashPoints: StateCrashPoints) throws(StateFileError) {
        try Replacement(of: path, writing: []).finish(writing: parts, kind: kind, crashPoints: crashPoints)
    }

    /// A replacement of a file in progress (see ``replace(_:with:kind:crashPoints:)``): its
    /// temporary file is open and holds the first parts, so the bulk of a file can be written
    /// while what ends it is still being computed.
    struct Replacement: Sendable {
        let path: String
        private let descriptor: Int32

        var temporary: String { self.path + ".tmp" }

        /// Starts replacing the file at `path`: creates `path.tmp` and writes `parts` to it.
        init(of path: String, writing parts: [[UInt8]]) throws(StateFileError) {
            self.path = path
            self.descriptor = open(path + ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard self.descriptor >= 0 else { throw .failed(path + ".tmp", .lastError(of: "open")) }
            do throws(StateFileError) {
                for part in parts {
                    try StateFile.write(part, to: self.descriptor, path: self.temporary)
                }
            } catch {
                self.abandon()
                throw error
            }
        }

        /// Flushes what was written so far to the disk, so that finishing costs only the rest.
        func flush() throws(StateFileError) {
            guard fdatasync(self.descriptor) == 0 else {
                let error = StateFileError.failed(self.temporary, .lastError(of: "fdatasync"))
                self.abandon()
                throw error
            }
        }

        /// Writes the last `parts`, `fsync`s, renames the temporary file over the file and
        /// `fsync`s the directory.
        func finish(writing parts: [[UInt8]], kind: String, crashPoints: StateCrashPoints) throws(StateFileError) {
            do throws(StateFileError) {
                for part in parts {
                    try StateFile.write(part, to: self.descriptor, path: self.temporary)
                }
                crashPoints.reach("\(kind)-written")
                guard fsync(self.descriptor) == 0 else { throw .failed(self.temporary, .lastError(of: "fsync")) }
            } catch {
                self.abandon()
                throw error
            }
            close(self.descriptor)
            crashPoints.reach("\(kind)-synced")
            guard rename(self.temporary, self.path) == 0 else {
                let error = StateFileError.failed(self.path, .lastError(of: "rename"))
                unlink(self.temporary)
                throw error
            }
            crashPoints.reach("\(kind)-renamed")
            try StateFile.syncDirectory(of: self.path)
        }

        /// Gives up: the temporary file is closed and removed, the file stays as it was.
        func abandon() {
            close(self.descriptor)
            unlink(self.temporary)
        }
    }

    /// Appends `bytes` to the file at `path` (which must exist) and `fsync`s it. When the write
    /// fails half-way, the file is cut back to its old length, so it never ends in a torn record.
    static func append(_ bytes: [UInt8], to path: String, kind: String, crashPoints: StateCrashPoints) throws(StateFileError) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw .failed(path, .lastError(of: "open")) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .failed(path, .lastError(of: "fstat")) }
        do throws(StateFileError) {
            try self.write(bytes, to: descriptor, path: path)
            crashPoints.reach("\(kind)-written")
            guard fsync(descriptor) == 0 else { throw .failed(path, .lastError(of: "fsync")) }
        } catch {
            _ = ftruncate(descriptor, status.st_size)
            throw error
        }
        crashPoints.reach("\(kind)-synced")
    }

    /// Cuts the file at `path` to `length` bytes and `fsync`s it.
    static func truncate(_ path: String, to length: Int) throws(StateFileError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .failed(path, .lastError(of: "open")) }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw .failed(path, .lastError(of: "ftruncate")) }
        guard fsync(descriptor) == 0 else { throw .failed(path, .lastError(of: "fsync")) }
    }

    /// Creates the directory at `path` (and its parents) when missing.
    static func createDirectory(_ path: String) throws(StateFileError) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o750) != 0, errno != EEXIST {
                throw .failed(prefix, .lastError(of: "mkdir"))
            }
        }
    }

    /// Renames the file at `path` to `path.damaged`, replacing an earlier one, so a damaged file
    /// can be examined but never accumulates. Missing files are left alone.
    static func moveAside(_ path: String) throws(StateFileError) {
        guard rename(path, path + ".damaged") == 0 || errno == ENOENT else {
            throw .failed(path, .lastError(of: "rename"))
        }
        try self.syncDirectory(of: path)
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

    /// `fsync`s the directory holding `path`, which makes a rename or a new entry in it durable.
    static func syncDirectory(of path: String) throws(StateFileError) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .failed(directory, .lastError(of: "open")) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .failed(directory, .lastError(of: "fsync")) }
    }

    fileprivate static func write(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(StateFileError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress.map { $0 + written }, $0.count - written) }
            if count > 0 {
                written += count
            } else if count < 0, errno != EINTR {
                throw .failed(path, .lastError(of: "write"))
            }
        }
    }
}

/// Why a state file could not be read or written.
enum StateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A system call failed on the file, e.g. `write` with `ENOSPC`.
    case failed(String, SystemCallError)
    /// The path names a directory or something else that is not a regular file.
    case notARegularFile(String)

    /// Whether the file system is full (or the quota is exhausted): the write can succeed later.
    var isOutOfSpace: Bool {
        if case .failed(_, let error) = self { return error.code == ENOSPC || error.code == EDQUOT }
        return false
    }

    var description: String {
        switch self {
        case .failed(let path, let error): return "\(path): \(error)"
        case .notARegularFile(let path): return "\(path): not a regular file"
        }
    }
}
