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
        return !self.allowedGroupIDs.isDisjoint(with: Self.groups(ofUser: peer.userID, primaryGroup: peer.groupID))
    }

    /// The groups `user` belongs to: `primaryGroup` and its supplementary groups (`getgrouplist`).
    static func groups(ofUser user: uid_t, primaryGroup: gid_t) -> Set<gid_t> {
        var result: Set<gid_t> = [primaryGroup]
        var userName: String?
        // A user the database cannot give (none, or a failed lookup) has only its primary group.
        _ = NameServiceLookup.withGrowingBuffer { buffer, size in
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            let code = getpwuid_r(user, &entry, buffer, size, &found)
            if code == 0, found != nil, let name = entry.pw_name {
                userName = String(cString: name)
            }
            return code
        }
        guard let name = userName else { return result }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primaryGroup, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, primaryGroup, &groups, &count) >= 0 else { return result }
        }
        result.formUnion(groups.prefix(Int(count)))
        return result
    }

    /// The id of the group called `name`; `nil` when the group database has no such group.
    ///
    /// - Throws: When the database cannot answer (``NameServiceError``): a failed lookup is
    ///   not reported as a missing group. The buffer sizes are for tests.
    static func groupID(
        named name: String, initialBufferSize: Int = NameServiceLookup.initialBufferSize,
        maximumBufferSize: Int = NameServiceLookup.maximumBufferSize
    ) throws(NameServiceError) -> gid_t? {
        var groupID: gid_t?
        let code = NameServiceLookup.withGrowingBuffer(initialBufferSize: initialBufferSize, maximumBufferSize: maximumBufferSize) {
            buffer, size in
            var entry = group()
            var found: UnsafeMutablePointer<group>?
            let code = getgrnam_r(name, &entry, buffer, size, &found)
            if code == 0, found != nil { groupID = entry.gr_gid }
            return code
        }
        // glibc answers "no such group" with 0 and no entry; some NSS modules with ENOENT.
        guard code == 0 || code == ENOENT else {
            throw NameServiceError(subject: "group \"\(name)\" in the group database", code: code, bufferSize: maximumBufferSize)
        }
        return groupID
    }
}
