import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SocketActivation.ListeningSocket {
    /// Checks that the descriptor is a listening `AF_UNIX` stream socket, marks it close-on-exec
    /// (as `sd_listen_fds` does), and returns it for SwiftNIO:
    ///
    /// ```swift
    /// let fd = try activation.socket(named: "api")?.adopt()
    /// let channel = try await ServerBootstrap(group: group).withBoundSocket(fd).get()
    /// ```
    ///
    /// NIO makes the descriptor non-blocking and does not unlink the socket file when it closes
    /// the channel (systemd owns it; `RemoveOnStop=yes` removes it).
    ///
    /// - Parameter families: The address families accepted: `AF_UNIX` for the control socket,
    ///   `AF_INET`/`AF_INET6` for the metrics socket.
    /// - Throws: ``SystemdError/unusableListeningSocket(fileDescriptor:reason:)`` when the
    ///   descriptor is closed, not a socket, not of `families`, not a stream or not listening.
    public func adopt(families: [Int32] = [AF_UNIX]) throws(SystemdError) -> Int32 {
        let flags = fcntl(self.fileDescriptor, F_GETFD)
        guard flags >= 0, fcntl(self.fileDescriptor, F_SETFD, flags | FD_CLOEXEC) == 0 else {
            throw self.unusable(SystemCallError.lastError(of: "fcntl").description)
        }
        let familyNames = families.map { $0 == AF_UNIX ? "AF_UNIX" : $0 == AF_INET ? "AF_INET" : $0 == AF_INET6 ? "AF_INET6" : "\($0)" }
        let requirements: [(option: Int32, expected: [Int32], failure: String)] = [
            (SO_DOMAIN, families, "not an \(familyNames.joined(separator: " or ")) socket"),
            (SO_TYPE, [Int32(SOCK_STREAM.rawValue)], "not a stream socket"),
            (SO_ACCEPTCONN, [1], "not listening"),
        ]
        for requirement in requirements {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(self.fileDescriptor, SOL_SOCKET, requirement.option, &value, &length) == 0 else {
                throw self.unusable(SystemCallError.lastError(of: "getsockopt").description)
            }
            guard requirement.expected.contains(value) else { throw self.unusable(requirement.failure) }
        }
        return self.fileDescriptor
    }

    private func unusable(_ reason: String) -> SystemdError {
        .unusableListeningSocket(fileDescriptor: self.fileDescriptor, reason: reason)
    }
}
