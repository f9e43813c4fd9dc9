import DurableFiles
import FileWatching
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import UnixSockets

/// The socket file the daemon binds when it is not socket-activated: made safe to bind before,
/// given its mode after, and removed at shutdown only if it is still the daemon's own.
struct UnixSocketFile: Sendable {
    /// The socket's path.
    let path: String
    /// Which file the daemon bound, so shutdown never removes a successor's socket.
    private let fileID: FileID

    /// Makes `path` free for binding: creates its directory if missing; removes a stale socket
    /// nobody accepts on; refuses a live one (another daemon) and anything that is not a socket.
    ///
    /// The test is a `connect`: NIO's `cleanupExistingSocketFile` would unlink a running daemon's
    /// socket, leaving it alive but unreachable.
    static func prepare(path: String) throws(ServerError) {
        let directory = ConfigurationPath.directory(of: path)
        if mkdir(directory, 0o755) != 0, errno != EEXIST {
            throw .socketDirectoryUnavailable(directory: directory, .lastError(of: "mkdir"))
        }
        var status = stat()
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else { throw .systemCall(path: path, .lastError(of: "lstat")) }
            return
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
        switch try Self.probe(path) {
        case .accepting:
            throw .socketInUse(path: path)
        case .stale:
            guard unlink(path) == 0 || errno == ENOENT else { throw .systemCall(path: path, .lastError(of: "unlink")) }
        }
    }

    /// Records the socket just bound at `path` and gives it `mode` (the bind itself ran under a
    /// umask that kept everyone else out).
    init(boundAt path: String, mode: mode_t) throws(ServerError) {
        guard chmod(path, mode) == 0 else { throw .systemCall(path: path, .lastError(of: "chmod")) }
        var status = stat()
        guard lstat(path, &status) == 0 else { throw .systemCall(path: path, .lastError(of: "lstat")) }
        self.path = path
        self.fileID = FileIdentity(status).fileID
    }

    /// Removes the socket file if it is still the one this daemon bound.
    func remove() {
        var status = stat()
        guard lstat(self.path, &status) == 0, FileIdentity(status).fileID == self.fileID else { return }
        unlink(self.path)
    }

    private enum Probe {
        case accepting
        case stale
    }

    private static func probe(_ path: String) throws(ServerError) -> Probe {
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path: path)
        } catch {
            throw .bindFailed(path: path, reason: error.description)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .systemCall(path: path, .lastError(of: "socket")) }
        defer { close(descriptor) }
        let result = address.withSocketAddress { connect(descriptor, $0, $1) }
        if result == 0 { return .accepting }
        switch errno {
        case ECONNREFUSED, ENOENT: return .stale
        case EAGAIN: return .accepting  // a listener whose backlog is full is alive
        default: throw .systemCall(path: path, .lastError(of: "connect"))
        }
    }
}
