#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPeerCredentials
import NIOCore

extension SocketServer {
    /// Where a peer's supplementary groups are read: the first 4096 (Linux allows 65536); a peer
    /// with more is judged by its primary group and its user's groups only.
    private typealias PeerGroupList = InlineArray<4096, gid_t>

    /// An option value of no bytes: asking `SO_PEERGROUPS` into it succeeds exactly when the peer
    /// has no supplementary groups (otherwise the kernel answers `ERANGE`).
    private struct NoGroups {}

    /// The supplementary groups of the peer of `channel` (`SO_PEERGROUPS`); empty when it has none
    /// or they cannot be read (then only its primary group and its user's groups count).
    ///
    /// NIO reads an option into zeroed memory of the value's size and drops the length the kernel
    /// reports, so the list's end is found from its order: the kernel keeps the groups sorted
    /// ascending, so the zeros after the last group are where the order breaks. A first read into
    /// no bytes tells an empty list from a list that starts with group 0.
    static func supplementaryGroups(of options: any SocketOptionProvider) -> EventLoopFuture<Set<gid_t>> {
        let level = SocketOptionLevel(SOL_SOCKET)
        let name = SocketOptionName(listsync_peer_groups_option())
        let probe: EventLoopFuture<NoGroups> = options.unsafeGetSocketOption(level: level, name: name)
        return probe.map { _ in Set<gid_t>() }.flatMapError { _ in
            let list: EventLoopFuture<PeerGroupList> = options.unsafeGetSocketOption(level: level, name: name)
            return list.map { groups in
                var result: Set<gid_t> = [groups[0]]
                var previous = groups[0]
                for index in 1..<groups.count {
                    let group = groups[index]
                    guard group >= previous else { break }
                    result.insert(group)
                    previous = group
                }
                return result
            }.recover { _ in [] }
        }
    }
}
