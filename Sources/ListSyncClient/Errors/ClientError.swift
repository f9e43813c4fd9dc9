import ListSyncProtocol

/// Why a client request or a subscription ended without success.
///
/// A struct with a ``Code`` rather than an enum (as swift-service-lifecycle's
/// `ServiceGroupError`), so that new kinds of failure can be added without breaking code that
/// switches over them: compare ``code`` with the static members of ``Code``, and read the
/// details that kind carries (``socketPath``, ``reason``, ``refusal``, ``watch``,
/// ``mirrorError``). Errors are made by the static functions named like the codes, e.g.
/// ``unreachable(socketPath:reason:)``, and compare equal when their code and details are equal.
public struct ClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure. Switch over it with a `default`, as more may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: Hashable, Sendable {
            case unreachable, connectionLost, refused, unknownWatch, watchRemoved, protocolViolation, inconsistentData, cancelled
        }

        fileprivate let kind: Kind

        /// No daemon could be reached at the socket (after the attempts the ``ReconnectPolicy``
        /// allows).
        public static let unreachable = Code(kind: .unreachable)
        /// The connection was lost (or went silent beyond the idle timeout) and the policy allows
        /// no more attempts.
        public static let connectionLost = Code(kind: .connectionLost)
        /// The daemon refused the connection or a request (``ClientError/refusal``).
        public static let refused = Code(kind: .refused)
        /// The daemon has no watch of that name (``ClientError/watch``).
        public static let unknownWatch = Code(kind: .unknownWatch)
        /// The watch left the daemon's configuration; its subscription ended.
        public static let watchRemoved = Code(kind: .watchRemoved)
        /// The daemon sent something the protocol does not allow where it came.
        public static let protocolViolation = Code(kind: .protocolViolation)
        /// The daemon's data kept failing verification even after fresh snapshots
        /// (``ClientError/mirrorError``).
        public static let inconsistentData = Code(kind: .inconsistentData)
        /// The task was cancelled.
        public static let cancelled = Code(kind: .cancelled)

        /// The code's name, e.g. `unreachable`.
        public var description: String { "\(self.kind)" }
    }

    /// The failure and its details, as the enum this type was.
    private enum Details: Hashable, Sendable {
        case unreachable(socketPath: String, reason: String)
        case connectionLost(reason: String)
        case refused(ErrorMessage)
        case unknownWatch(String)
        case watchRemoved(String)
        case protocolViolation(String)
        case inconsistentData(MirrorError)
        case cancelled
    }

    private let details: Details

    /// The kind of failure.
    public var code: Code {
        switch self.details {
        case .unreachable: .unreachable
        case .connectionLost: .connectionLost
        case .refused: .refused
        case .unknownWatch: .unknownWatch
        case .watchRemoved: .watchRemoved
        case .protocolViolation: .protocolViolation
        case .inconsistentData: .inconsistentData
        case .cancelled: .cancelled
        }
    }

    /// The socket no daemon answered at (``Code/unreachable``).
    public var socketPath: String? {
        if case .unreachable(let socketPath, _) = self.details { return socketPath }
        return nil
    }

    /// Why: the last connection error (``Code/unreachable``, ``Code/connectionLost``), or what
    /// broke the protocol (``Code/protocolViolation``).
    public var reason: String? {
        switch self.details {
        case .unreachable(_, let reason), .connectionLost(let reason), .protocolViolation(let reason): reason
        default: nil
        }
    }

    /// The daemon's `error` message (``Code/refused``): `not_permitted`, `unsupported_version`,
    /// `bad_cursor` and the like.
    public var refusal: ErrorMessage? {
        if case .refused(let message) = self.details { return message }
        return nil
    }

    /// The watch named (``Code/unknownWatch``, ``Code/watchRemoved``).
    public var watch: String? {
        switch self.details {
        case .unknownWatch(let watch), .watchRemoved(let watch): watch
        default: nil
        }
    }

    /// The last verification failure (``Code/inconsistentData``).
    public var mirrorError: MirrorError? {
        if case .inconsistentData(let error) = self.details { return error }
        return nil
    }

    /// No daemon could be reached at `socketPath`; `reason` is the last connection error.
    public static func unreachable(socketPath: String, reason: String) -> ClientError {
        ClientError(details: .unreachable(socketPath: socketPath, reason: reason))
    }

    /// The connection was lost, for `reason`, and the policy allows no more attempts.
    public static func connectionLost(reason: String) -> ClientError {
        ClientError(details: .connectionLost(reason: reason))
    }

    /// The daemon refused with `message`.
    public static func refused(_ message: ErrorMessage) -> ClientError {
        ClientError(details: .refused(message))
    }

    /// The daemon has no watch named `watch`.
    public static func unknownWatch(_ watch: String) -> ClientError {
        ClientError(details: .unknownWatch(watch))
    }

    /// The watch `watch` left the daemon's configuration.
    public static func watchRemoved(_ watch: String) -> ClientError {
        ClientError(details: .watchRemoved(watch))
    }

    /// The daemon broke the protocol: `reason`.
    public static func protocolViolation(_ reason: String) -> ClientError {
        ClientError(details: .protocolViolation(reason))
    }

    /// The daemon's data kept failing verification; `error` is the last failure.
    public static func inconsistentData(_ error: MirrorError) -> ClientError {
        ClientError(details: .inconsistentData(error))
    }

    /// The task was cancelled.
    public static let cancelled = ClientError(details: .cancelled)

    /// What happened, for a person.
    public var description: String {
        switch self.details {
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
