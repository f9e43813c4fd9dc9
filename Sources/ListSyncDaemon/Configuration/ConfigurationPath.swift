/// Lexical path handling for the configuration: making paths absolute and normalised so that
/// equal files compare equal across reloads.
///
/// Purely textual — no file system access — so a configuration can be checked before the paths
/// exist. `..` is removed lexically, which differs from the kernel's resolution only when the
/// component before it is a symbolic link.
enum ConfigurationPath {
    /// `path` without empty and `.` components, with each `..` removing the component before it
    /// (never climbing above `/` for an absolute path).
    ///
    /// - Complexity: O(*n*) in the length of `path`.
    static func normalize(_ path: String) -> String {
        let isAbsolute = path.hasPrefix("/")
        var components: [Substring] = []
        for component in path.split(separator: "/") {
            switch component {
            case ".":
                continue
            case "..":
                if let last = components.last, last != ".." {
                    components.removeLast()
                } else if !isAbsolute {
                    components.append(component)
                }
            default:
                components.append(component)
            }
        }
        let joined = components.joined(separator: "/")
        if isAbsolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// `path` made absolute against `directory` (itself absolute) when it is relative, then
    /// normalised.
    static func resolve(_ path: String, against directory: String) -> String {
        normalize(path.hasPrefix("/") ? path : directory + "/" + path)
    }

    /// The directory part of `path`: everything before the last `/` (`/` for a top-level file,
    /// `.` when there is no `/`).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
