import Glibc

/// The ways tests change files, each a plain system call sequence so the inotify events are
/// exactly those of the save strategy it imitates.
package enum FileOperations {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Opens `path` with `flags` and writes each chunk, pausing `pause` between chunks, then
    /// closes. The pauses block the calling thread: for writers on a thread of their own
    /// (``BlockingThread``); a test's task uses ``write(_:to:flags:pausing:)``.
    package static func write(_ chunks: [String], to path: String, flags: Int32 = O_WRONLY | O_CREAT | O_TRUNC, pause: Duration = .zero) throws {
        let descriptor = try open(path, flags: flags)
        defer { close(descriptor) }
        for (index, chunk) in chunks.enumerated() {
            if index > 0, pause > .zero {
                usleep(UInt32(pause / .microseconds(1)))
            }
            try write(chunk, to: descriptor, path: path)
        }
    }

    /// Opens `path` with `flags` and writes each chunk, pausing `pause` between chunks (a
    /// `Task.sleep`, which holds no thread), then closes.
    package static func write(_ chunks: [String], to path: String, flags: Int32 = O_WRONLY | O_CREAT | O_TRUNC, pausing pause: Duration) async throws {
        let descriptor = try open(path, flags: flags)
        defer { close(descriptor) }
        for (index, chunk) in chunks.enumerated() {
            if index > 0, pause > .zero {
                try await Task.sleep(for: pause)
            }
            try write(chunk, to: descriptor, path: path)
        }
    }

    private static func open(_ path: String, flags: Int32) throws -> Int32 {
        let descriptor = Glibc.open(path, flags | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("open \(path)") }
        return descriptor
    }

    private static func write(_ chunk: String, to descriptor: Int32, path: String) throws {
        let bytes = Array(chunk.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            throw failure("write \(path)")
        }
    }

    /// Writes `text` to `path` in one open–write–close, during which no child process starts
    /// (``DescriptorInheritance``): the file's close is its last, as a writer's would be.
    package static func write(_ text: String, to path: String) throws {
        try DescriptorInheritance.withoutChildStarts { try write([text], to: path) }
    }

    package static func rename(_ from: String, to: String) throws {
        guard Glibc.rename(from, to) == 0 else { throw failure("rename \(from) → \(to)") }
    }

    package static func remove(_ path: String) throws {
        guard unlink(path) == 0 else { throw failure("unlink \(path)") }
    }

    package static func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 else { throw failure("mkdir \(path)") }
    }

    package static func removeDirectory(_ path: String) throws {
        guard rmdir(path) == 0 else { throw failure("rmdir \(path)") }
    }

    package static func symlink(_ target: String, at path: String) throws {
        guard Glibc.symlink(target, path) == 0 else { throw failure("symlink \(path)") }
    }

    /// Points the symbolic link at `path` to `target` atomically, as `ln -sfn` does: a new link
    /// under a temporary name, renamed over the old one.
    package static func replaceSymlink(_ path: String, with target: String) throws {
        try symlink(target, at: path + ".new")
        try rename(path + ".new", to: path)
    }

    package static func hardLink(_ existing: String, at path: String) throws {
        guard link(existing, path) == 0 else { throw failure("link \(path)") }
    }

    /// Runs `executable` with `arguments` to its end without holding a thread; it must exit 0.
    package static func runToEnd(_ executable: String, _ arguments: [String]) async throws {
        try await ChildProcess.runToEnd(executable, arguments, outputPath: "/dev/null", errorPath: "/dev/null")
    }

    private static func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
