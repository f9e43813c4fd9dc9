import ArgumentParser
import ListSyncClient

/// Why a command that talks to the daemon failed, and the exit status it gives: 1 usage or
/// configuration error, 2 daemon unreachable, 3 data or protocol error (also a refusal such as
/// `unsupported_version`, `line_too_long` or `bad_request`: the daemon was reached and said no),
/// 4 a command `exec` ran failed
/// (with `--on-error stop`), 5 the daemon does not permit this user (`not_permitted`, at
/// connect or when a reload revokes access).
///
/// Commands run their work through ``exitingOnFailure(_:)``, which prints the failure on standard
/// error as `listsync: error: …` and exits with its status.
enum ClientFailure: Error, CustomStringConvertible {
    /// The command line or the configuration is wrong (an unknown watch, a bad cursor).
    case usage(String)
    /// The client library gave up.
    case client(ClientError)
    /// The data could not be mirrored: the watch has no valid version, or the output could not
    /// be written.
    case data(String)
    /// A command `exec` ran failed, and `exec` was told to stop then.
    case commandFailed(String)
    /// The NATS servers did not answer (`sink nats`, `mirror --from`).
    case unreachable(String)

    /// The status of a permission refusal (`not_permitted`).
    static let notPermittedStatus = ExitCode(5)

    /// The exit status.
    var exitCode: ExitCode {
        switch self {
        case .usage: return ExitCode(1)
        case .data: return ExitCode(3)
        case .commandFailed: return ExitCode(4)
        case .unreachable: return ExitCode(2)
        case .client(let error):
            switch error.code {
            case .unknownWatch, .watchRemoved: return ExitCode(1)
            case .refused where error.refusal?.code == .badCursor: return ExitCode(1)
            case .refused where error.refusal?.code == .notPermitted: return Self.notPermittedStatus
            case .unreachable, .connectionLost: return ExitCode(2)
            // The daemon answered, so it is not unreachable: client and daemon disagree.
            case .refused, .protocolViolation, .inconsistentData: return ExitCode(3)
            case .cancelled: return ExitCode(130)
            default: return ExitCode(3)
            }
        }
    }

    var description: String {
        switch self {
        case .usage(let message), .data(let message), .commandFailed(let message), .unreachable(let message): return "listsync: error: \(message)"
        case .client(let error): return "listsync: error: \(error)"
        }
    }

    /// Runs `body`; a ``ClientFailure`` or ``ClientError`` it throws is printed and becomes the
    /// command's exit status.
    static func exitingOnFailure(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let failure as ClientFailure {
            OutputWriter.writeStandardError("\(failure)\n")
            throw failure.exitCode
        } catch let error as ClientError {
            let failure = ClientFailure.client(error)
            OutputWriter.writeStandardError("\(failure)\n")
            throw failure.exitCode
        }
    }
}
