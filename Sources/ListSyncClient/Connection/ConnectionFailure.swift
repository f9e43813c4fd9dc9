import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a connection to the daemon could not be opened or used, said the way a person reads it
/// (`No such file or directory`, `Connection refused`).
struct ConnectionFailure: Error, CustomStringConvertible {
    /// What happened.
    let reason: String

    init(reason: String) {
        self.reason = reason
    }

    /// The failure an error from NIO (or anything else) describes.
    init(_ error: any Error) {
        switch error {
        case let failure as ConnectionFailure:
            self = failure
        case let error as IOError:
            self.init(reason: String(cString: strerror(error.errnoCode)))
        case ChannelError.connectTimeout:
            self.init(reason: "timed out")
        case ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed, ChannelError.outputClosed:
            self.init(reason: "the connection is closed")
        default:
            self.init(reason: "\(error)")
        }
    }

    /// The connection stayed silent beyond the idle timeout and was closed.
    static let silent = ConnectionFailure(reason: "no message from the daemon within the idle timeout")

    var description: String { self.reason }
}
