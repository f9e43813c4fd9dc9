import Glibc
import ListSyncProtocol
import NIOCore
import NIOEmbedded
import Testing
@testable import ListSyncDaemon

/// A connection accepted under one allowlist that registers after a reload replaced it.
@Suite struct ConnectionAdmissionTests {
    static func access(allowing users: [uid_t]) -> PeerAccess {
        PeerAccess(daemonUserID: 0, allowedUserIDs: users, allowedGroups: [])
    }

    /// The reload did not see the connection (not registered yet): the connection checks itself
    /// against the new list when it registers, and is closed with `not_permitted`.
    @Test func aConnectionAcceptedBeforeAReloadThatRevokesItsPeerIsClosedWhenItRegisters() throws {
        let list = AccessList(Self.access(allowing: [1]))
        let accepted = list.snapshot.generation
        list.replace(with: Self.access(allowing: []))
        let connection = try EmbeddedConnection(admission: .init(accessList: list, generation: accepted, pool: nil))
        #expect(try connection.received().map(\.errorCode) == [.notPermitted])
        #expect(!connection.channel.isActive)
    }

    /// A reload that still allows the peer, or no reload at all, leaves the connection open.
    @Test func aConnectionStillAllowedStaysOpen() throws {
        let list = AccessList(Self.access(allowing: [1]))
        let unchanged = try EmbeddedConnection(admission: .init(accessList: list, generation: list.snapshot.generation, pool: nil))
        let accepted = list.snapshot.generation
        list.replace(with: Self.access(allowing: [1, 2]))
        let reloaded = try EmbeddedConnection(admission: .init(accessList: list, generation: accepted, pool: nil))
        for connection in [unchanged, reloaded] {
            #expect(try connection.received().isEmpty)
            try connection.send(.hello(ClientHello()))
            guard case .hello = try connection.received().first else {
                Issue.record("no hello")
                continue
            }
            #expect(connection.channel.isActive)
        }
    }
}
