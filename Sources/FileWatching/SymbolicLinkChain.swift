import Glibc

/// The symbolic links a watched path goes through, and the file it ends at.
///
/// A watched path's parent directory is watched, so a change behind a symbolic link — to the
/// file a link points to, or to a link on the way — raises no event there. The watcher therefore
/// also watches, as *aliases* of the watched file, every link on the path (in the real directory
/// that holds it, so swapping the link is seen) and the file the path finally resolves to (so
/// editing it is seen), and resolves the chain again whenever one of them is replaced.
struct SymbolicLinkChain: Hashable {
    /// The links on the way, each as a path whose directories are real, then the resolved file's
    /// real path — empty when the path has no symbolic link at all.
    let aliases: [String]

    /// Symbolic links followed before giving up, as the kernel's `ELOOP` limit.
    static let maximumLinks = 40
}

extension SymbolicLinkChain {

    /// Resolves `path` (absolute, normalised) component by component with `lstat` and
    /// `readlink`. A missing component ends the walk: the rest is taken literally, and resolved
    /// again when it appears. A loop or an unreadable link ends it too, with what was found.
    init(resolving path: String) {
        var resolved = "/"
        var remaining = Array(path.split(separator: "/").map(String.init).reversed())
        var links: [String] = []
        while let component = remaining.popLast() {
            if component == "." || component.isEmpty { continue }
            if component == ".." {
                // `resolved` has no links, so its lexical parent is its real parent.
                resolved = WatchedPath.parent(of: resolved) ?? "/"
                continue
            }
            let candidate = WatchedPath.entry(component, in: resolved)
            var status = stat()
            guard lstat(candidate, &status) == 0 else {
                // Missing (or unreachable): nothing below it can be resolved now.
                resolved = remaining.reversed().reduce(candidate) { WatchedPath.entry($1, in: $0) }
                break
            }
            guard status.st_mode & S_IFMT == S_IFLNK, links.count < Self.maximumLinks, let target = Self.target(of: candidate) else {
                resolved = candidate
                continue
            }
            links.append(candidate)
            if target.hasPrefix("/") {
                resolved = "/"
            }
            remaining += target.split(separator: "/").map(String.init).reversed()
        }
        aliases = links.isEmpty ? [] : links + [resolved]
    }

    /// The text of the symbolic link at `path`, or `nil` if it cannot be read.
    private static func target(of path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
