#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A user or group database lookup that got no answer — not "there is no such entry", which is
/// an answer, but a database that failed (an NSS module, an unreachable LDAP server) or an entry
/// larger than ``NameServiceLookup/maximumBufferSize``.
struct NameServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was looked up, e.g. `group "staff"`.
    var subject: String
    /// The `errno` value the call returned.
    var code: Int32
    /// The largest buffer tried, for `ERANGE`.
    var bufferSize: Int

    var description: String {
        if self.code == ERANGE {
            return "cannot look up \(self.subject): its entry does not fit in \(self.bufferSize) bytes"
        }
        return "cannot look up \(self.subject): \(String(cString: strerror(self.code))) (errno \(self.code))"
    }
}
