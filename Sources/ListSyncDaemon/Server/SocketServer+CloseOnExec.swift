#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOCore

extension SocketServer {
    /// Marks `channel`'s socket close-on-exec. Call on the channel's event loop, first thing.
    ///
    /// NIO creates and accepts sockets without `SOCK_CLOEXEC`, so without this a process spawned
    /// by anything else in the daemon's process (or a test's) would inherit every connection and
    /// hold it open after the server closed it: the client would never see the end. The flag is
    /// set as the channel is initialised, so only a spawn in the microseconds between `accept`
    /// and this call can still inherit it.
    static func setCloseOnExec(_ channel: any Channel) -> EventLoopFuture<Void> {
        do {
            let result = try channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) { descriptor in
                guard fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC) == 0 else {
                    throw IOError(errnoCode: errno, reason: "fcntl(F_SETFD, FD_CLOEXEC)")
                }
            }
            guard result != nil else {
                return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
            }
            return channel.eventLoop.makeSucceededVoidFuture()
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
    }
}
