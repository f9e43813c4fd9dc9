#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole reads and writes on a file descriptor with read(2) and write(2), retried after
/// interruptions (`EINTR`) and short counts: the one loop behind standard output, the state file
/// and atomic file replacement.
enum FileDescriptorIO {
    /// A read or write failed; `code` is the system's `errno`.
    struct Failure: Error {
        let code: Int32

        /// The system's text for ``code``.
        var reason: String { String(cString: strerror(self.code)) }
    }

    /// Writes every byte of `bytes` to `descriptor`.
    ///
    /// - Throws: ``Failure`` on the first error other than `EINTR`; some bytes may be written.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(code: errno)
            }
            offset += written
        }
    }

    /// Reads `descriptor` to its end. O(bytes read).
    ///
    /// - Throws: ``Failure`` on the first error other than `EINTR`.
    static func readAll(from descriptor: Int32) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = block.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(code: errno)
            }
            if count == 0 { return bytes }
            bytes += block[..<count]
        }
    }
}

/// write(2), named apart from the writers' own `write` methods.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}

/// read(2), named apart from the readers' own `read` methods.
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, bytes, count)
    #else
    Darwin.read(descriptor, bytes, count)
    #endif
}
