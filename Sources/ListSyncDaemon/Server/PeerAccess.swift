#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Who may connect: root, the daemon's own user, the configured users, and members of the
/// configured groups (`allow_uids`, `allow_groups`), judged from the peer's `SO_PEERCRED` and
/// `SO_PEERGROUPS`.
///
/// A peer is a member of a group when the group is its process's primary group, one of its
/// process's supplementary groups (what `SO_PEERGROUPS` reports: a systemd service with
/// `DynamicUser=yes` and `SupplementaryGroups=` has its groups only there), or one of the groups
/// the group database gives its user (`getgrouplist`). Group names were resolved to ids when the
/// configuration was loaded, so a decision never looks a name up.
struct PeerAccess: Sendable, Hashable {
    /// The daemon's own user id.
    var daemonUserID: uid_t
    /// `allow_uids`.
    var allowedUserIDs: [uid_t]
    /// `allow_groups`, as group ids.
    var allowedGroupIDs: Set<gid_t>

    init(daemonUserID: uid_t, allowedUserIDs: [uid_t], allowedGroups: [DaemonConfiguration.GroupReference]) {
        self.daemonUserID = daemonUserID
        self.allowedUserIDs = allowedUserIDs
        self.allowedGroupIDs = Set(allowedGroups.map(\.groupID))
    }

    /// The credentials of a connecting process.
    struct Peer: Sendable, Hashable, CustomStringConvertible {
        var processID: pid_t
        var userID: uid_t
        var groupID: gid_t
        /// The process's supplementary groups (`SO_PEERGROUPS`), as they were when it connected.
        var supplementaryGroupIDs: Set<gid_t> = []

        var description: String { "pid \(self.processID), uid \(self.userID), gid \(self.groupID)" }
    }

    /// Whether `peer` may connect without looking up the groups of its user: root, the daemon's
    /// user, an allowed user, or an allowed group that is the process's primary or a
    /// supplementary one. `nil` when only a lookup can tell.
    func quickDecision(for peer: Peer) -> Bool? {
        if peer.userID == 0 || peer.userID == self.daemonUserID || self.allowedUserIDs.contains(peer.userID) {
            return true
        }
        if self.allowedGroupIDs.contains(peer.groupID) || !self.allowedGroupIDs.isDisjoint(with: peer.supplementaryGroupIDs) {
            return true
        }
        return self.allowedGroupIDs.isEmpty ? false : nil
    }

    /// Whether `peer` may connect, looking up its user's groups in the user and group databases
    /// (NSS) when needed. Blocks on those lookups: call it off the event loops.
    func allows(_ peer: Peer) -> Bool {
        if let decision = self.quickDecision(for: peer) {
            return decision
        }
        return !self.allowedGroupIDs.isDisjoint(with: AccountDatabase.groups(ofUser: peer.userID, primaryGroup: peer.groupID))
    }
}
