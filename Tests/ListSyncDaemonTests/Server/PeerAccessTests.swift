import Glibc
import Testing
@testable import ListSyncDaemon

@Suite struct PeerAccessTests {
    static func peer(_ user: uid_t, _ group: gid_t) -> PeerAccess.Peer {
        PeerAccess.Peer(processID: 1, userID: user, groupID: group)
    }

    @Test func rootTheDaemonsUserAndListedUsersAreAllowedAtOnce() {
        let access = PeerAccess(daemonUserID: 990, allowedUserIDs: [1000], allowedGroups: [.id(50)])
        #expect(access.quickDecision(for: Self.peer(0, 0)) == true)
        #expect(access.quickDecision(for: Self.peer(990, 7)) == true)
        #expect(access.quickDecision(for: Self.peer(1000, 7)) == true)
        #expect(access.quickDecision(for: Self.peer(2000, 50)) == true, "primary group given by id")
        #expect(access.quickDecision(for: Self.peer(2000, 51)) == nil, "only a lookup can tell")
        #expect(PeerAccess(daemonUserID: 990, allowedUserIDs: [], allowedGroups: []).quickDecision(for: Self.peer(2000, 51)) == false)
    }

    @Test func supplementaryGroupsOfTheConnectingProcessCount() {
        let access = PeerAccess(daemonUserID: 990, allowedUserIDs: [], allowedGroups: [.id(50)])
        var peer = Self.peer(61234, 61234)
        #expect(access.quickDecision(for: peer) == nil)
        peer.supplementaryGroupIDs = [7, 50]
        #expect(access.quickDecision(for: peer) == true)
        #expect(access.allows(peer))
    }

    @Test func groupNamesAndSupplementaryGroupsAreLookedUp() throws {
        // `daemon` (uid 1, group 1) exists on every Debian system.
        let daemonUser = try #require(getpwnam("daemon")?.pointee)
        let peer = Self.peer(daemonUser.pw_uid, daemonUser.pw_gid)
        let groupName = String(cString: try #require(getgrgid(daemonUser.pw_gid)?.pointee.gr_name))
        let groupID = try #require(try AccountDatabase.groupID(named: groupName))
        #expect(PeerAccess(daemonUserID: 990, allowedUserIDs: [], allowedGroups: [.name(groupName, id: groupID)]).allows(peer))
        #expect(try AccountDatabase.groupID(named: "no-such-group-\(getpid())") == nil)

        // A supplementary membership from the group database, if this system has one.
        setgrent()
        defer { endgrent() }
        while let entry = getgrent()?.pointee {
            guard let members = entry.gr_mem, let first = members.pointee, let user = getpwnam(first)?.pointee, user.pw_gid != entry.gr_gid else {
                continue
            }
            let member = Self.peer(user.pw_uid, user.pw_gid)
            #expect(PeerAccess(daemonUserID: 990, allowedUserIDs: [], allowedGroups: [.id(entry.gr_gid)]).allows(member))
            #expect(AccountDatabase.groups(ofUser: user.pw_uid, primaryGroup: user.pw_gid).contains(entry.gr_gid))
            return
        }
    }

    /// A group whose entry does not fit in the first buffer (a group with many members, from
    /// LDAP) is found: the buffer grows on `ERANGE`. One that does not fit in the largest buffer
    /// is a failed lookup that says so — never "no such group". Shown with buffers far smaller
    /// than the real ones, on the group `root` (id 0).
    @Test func aGroupLargerThanTheBufferIsFoundAndOneLargerThanTheBoundIsAnError() throws {
        let name = String(cString: try #require(getgrgid(0)?.pointee.gr_name))
        #expect(try AccountDatabase.groupID(named: name, initialBufferSize: 2) == 0)
        let error = #expect(throws: NameServiceError.self, "a lookup that failed was reported as no group") {
            try AccountDatabase.groupID(named: name, initialBufferSize: 2, maximumBufferSize: 3)
        }
        #expect(error?.code == ERANGE)
        #expect(error?.description == "cannot look up group \"\(name)\" in the group database: its entry does not fit in 3 bytes")
    }
}
