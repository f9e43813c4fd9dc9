import ListSyncProtocol

/// Why a client request or a subscription ended without success.
public enum ClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No daemon could be reached at the socket (after the attempts the ``ReconnectPolicy``
    /// allows): `reason` is the last connection error.
    case unreachable(socketPath: String, reason: String)
    /// The connection was lost (or went silent beyond the idle timeout) and the policy allows no
    /// more attempts.
    case connectionLost(reason: String)
    /// The daemon refused the connection or a request: `not_permitted`, `unsupported_version`,
    /// `bad_cursor` and the like.
    case refused(ErrorMessage)
    /// The daemon has no watch of that name.
    case unknownWatch(String)
    /// The watch left the daemon's configuration; its subscription ended.
    case watchRemoved(String)
    /// The daemon sent something the protocol does not allow where it came (no `hello` first, a
    /// reply to a request never made).
    case protocolViolation(String)
    /// The daemon's data kept failing verification (digests, positions) even after fresh
    /// snapshots: the last ``MirrorError``.
    case inconsistentData(MirrorError)
    /// The task was cancelled.
    case cancelled

    /// What happened, for a person.
    public var description: String {
        switch self {
        case .unreachable(let socketPath, let reason):
            return "cannot reach listsyncd at \(socketPath): \(reason)"
        case .connectionLost(let reason):
            return "lost the connection to listsyncd: \(reason)"
        case .refused(let error):
            return "listsyncd refused: \(error)"
        case .unknownWatch(let watch):
            return "listsyncd has no watch named \"\(watch)\""
        case .watchRemoved(let watch):
            return "the watch \"\(watch)\" was removed from listsyncd's configuration"
        case .protocolViolation(let reason):
            return "listsyncd broke the protocol: \(reason)"
        case .inconsistentData(let error):
            return "listsyncd's data does not verify: \(error)"
        case .cancelled:
            return "cancelled"
        }
    }
}
