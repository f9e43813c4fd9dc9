/// A watched file's path, split into the directory the watcher watches and the entry name it
/// routes that directory's events by.
struct WatchedPath: Hashable, Sendable {
    /// The normalised absolute path: no empty or `.` components, no trailing slash.
    let path: String
    /// The parent directory's normalised path (`/` for a file in the root).
    let directory: String
    /// The file's entry name within ``directory``.
    let name: String

    /// Normalises `path` (`//` and `.` components collapse) and splits it.
    ///
    /// - Throws: ``FileWatcherError/invalidPath(_:reason:)`` for a relative path, a path with a
    ///   `..` component (resolving it lexically would be wrong across symbolic links) or no file name.
    init(_ path: String) throws(FileWatcherError) {
        guard path.hasPrefix("/") else {
            throw .invalidPath(path, reason: "the path is not absolute")
        }
        let components = path.split(separator: "/").filter { $0 != "." }
        guard !components.contains("..") else {
            throw .invalidPath(path, reason: "the path has a '..' component")
        }
        guard let name = components.last else {
            throw .invalidPath(path, reason: "the path names no file")
        }
        self.name = String(name)
        self.directory = Self.join(components.dropLast())
        self.path = Self.join(components[...])
    }

    /// The parent of a normalised directory path; `nil` for the root.
    static func parent(of directory: String) -> String? {
        guard directory != "/" else { return nil }
        return join(directory.split(separator: "/").dropLast())
    }

    /// The first component of `descendant` below `ancestor`, e.g. `b` for `/a` and `/a/b/c`.
    static func childName(of ancestor: String, toward descendant: String) -> String? {
        let prefix = ancestor == "/" ? "/" : ancestor + "/"
        guard descendant.hasPrefix(prefix) else { return nil }
        return descendant.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
    }

    /// The path of entry `name` in `directory`.
    static func entry(_ name: String, in directory: String) -> String {
        directory == "/" ? "/" + name : directory + "/" + name
    }

    private static func join(_ components: ArraySlice<Substring>) -> String {
        "/" + components.joined(separator: "/")
    }
}
