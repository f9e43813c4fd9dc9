#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The buffer of a reentrant user or group database call (`getgrnam_r`, `getpwuid_r`), grown
/// until the entry fits.
///
/// An entry's strings live in a buffer the caller gives; one too small makes the call fail with
/// `ERANGE`. A group with many members (LDAP, a large organisation) needs far more than the
/// usual 16 KiB, so the buffer doubles, up to ``maximumBufferSize`` — bounded, as every buffer of
/// the daemon is — and only a call that still fails then, or fails otherwise, is an error.
enum NameServiceLookup {
    /// The first buffer tried.
    static let initialBufferSize = 16 << 10
    /// The largest buffer tried: an entry that does not fit is an error, not a missing entry.
    static let maximumBufferSize = 1 << 20

    /// Calls `call` with a buffer and its size until it returns something other than `ERANGE`
    /// or the buffer reached `maximumBufferSize`; returns what the last call returned (`0` or an
    /// `errno` value). `call` must take what it needs from the entry before returning: the
    /// entry's strings live in the buffer.
    static func withGrowingBuffer(
        initialBufferSize: Int = NameServiceLookup.initialBufferSize, maximumBufferSize: Int = NameServiceLookup.maximumBufferSize,
        _ call: (_ buffer: UnsafeMutablePointer<CChar>, _ size: Int) -> Int32
    ) -> Int32 {
        var size = max(1, min(initialBufferSize, maximumBufferSize))
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let code = buffer.withUnsafeMutableBufferPointer { call($0.baseAddress!, $0.count) }
            guard code == ERANGE, size < maximumBufferSize else { return code }
            size = min(size * 2, maximumBufferSize)
        }
    }
}
