import Glibc
import Testing

/// The ways editors and scripts save a file, each a different sequence of inotify events for the
/// daemon (docs of issue 4, §2).
package enum SaveStrategy: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Truncate and write in place, in two writes with a pause between: `MODIFY, MODIFY,
    /// CLOSE_WRITE`, with partial content visible in between.
    case truncateAndWrite
    /// Write a temporary file, rename it over (`MOVED_TO`).
    case writeTemporaryAndRename
    /// `sed -i`, which writes a temporary file and renames it over.
    case sedInPlace
    /// vim's backup dance: the original renamed to `file~`, the new file written, `file~` deleted —
    /// the target is briefly missing.
    case vimBackup
    /// `cp` over the file: truncate and write by another program.
    case copyOver
    /// Delete the file, then create it again.
    case deleteAndRecreate

    package var testDescription: String { self.rawValue }

    /// Replaces the content of `path` with `text`; `scratch` is a directory for helper files.
    package func save(_ text: String, to path: String, scratch: String) async throws {
        switch self {
        case .truncateAndWrite:
            let bytes = Array(text.utf8)
            let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            try FileContent.append(bytes[..<(bytes.count / 2)], to: descriptor, path: path)
            // Half a file stays visible for a moment, as when a program writes slowly.
            try await Task.sleep(for: .milliseconds(30))
            try FileContent.append(bytes[(bytes.count / 2)...], to: descriptor, path: path)
        case .writeTemporaryAndRename:
            try FileContent.write(text, to: path + ".tmp")
            try FileContent.rename(path + ".tmp", path)
        case .sedInPlace:
            // Every line deleted, the new content read in after the last: the whole file replaced.
            try FileContent.write(text, to: scratch + "/sed-input")
            try await FileContent.tool("/bin/sed", ["-i", "-e", "$r \(scratch)/sed-input", "-e", "d", path], scratch: scratch)
        case .vimBackup:
            try FileContent.rename(path, path + "~")
            try FileContent.write(text, to: path)
            try FileContent.unlink(path + "~")
        case .copyOver:
            try FileContent.write(text, to: scratch + "/cp-source")
            try await FileContent.tool("/bin/cp", [scratch + "/cp-source", path], scratch: scratch)
        case .deleteAndRecreate:
            try FileContent.unlink(path)
            try FileContent.write(text, to: path)
        }
    }
}
