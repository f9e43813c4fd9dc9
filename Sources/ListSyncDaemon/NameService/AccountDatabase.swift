#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The user and group databases (NSS: `/etc/group`, LDAP…), asked by the configuration (the
/// ids of `allow_groups` names, when it is loaded) and by the server (a peer's groups, when it
/// connects). Each call blocks on the databases: call it off the event loops.
enum AccountDatabase {
    /// The groups `user` belongs to: `primaryGroup` and its supplementary groups (`getgrouplist`).
    /// A user the database cannot give (none, or a failed lookup) has only its primary group.
    static func groups(ofUser user: uid_t, primaryGroup: gid_t) -> Set<gid_t> {
        var result: Set<gid_t> = [primaryGroup]
        var userName: String?
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
