import UnixSockets

extension UnixSocketAddress {
    /// The address `NOTIFY_SOCKET` names: `/path` or `@abstract`.
    init(notifySocket: String) throws(SystemdError) {
        guard notifySocket.hasPrefix("@") || notifySocket.hasPrefix("/") else { throw .unsupportedNotifySocket(notifySocket) }
        do {
            self = notifySocket.hasPrefix("@") ? try UnixSocketAddress(abstractName: String(notifySocket.dropFirst())) : try UnixSocketAddress(path: notifySocket)
        } catch {
            throw .socketAddressTooLong(notifySocket)
        }
    }
}
