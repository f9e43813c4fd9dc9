#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole reads and writes on a file descriptor with read(2) and write(2), retried after
/// interruptions (`EINTR`) and short counts: the one loop behind the CLI's standard output, the
/// state files of the daemon and the CLI, and ``DurableFile``'s atomic replacement and appends.
public enum FileDescriptorIO {
    /// Writes every byte of `bytes` to `descriptor`.
    ///
    /// - Throws: ``SystemCallError`` (`write`) on the first error other than `EINTR`; some bytes
    ///   may be written.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .lastError(of: "write")
            }
            offset += written
        }
    }

    /// Writes every byte of `bytes` to `descriptor` from byte `offset` of its file (pwrite(2)),
    /// whatever the descriptor's position: what writes into space a file already holds.
    ///
    /// - Throws: ``SystemCallError`` (`pwrite`) on the first error other than `EINTR`; some bytes
    ///   may be written.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32, at offset: Int) throws(SystemCallError) {
        try bytes.withUnsafeBufferPointer { buffer throws(SystemCallError) in try self.writeAll(UnsafeRawBufferPointer(buffer), to: descriptor, at: offset) }
    }

    /// Writes every byte of `bytes` to `descriptor` from byte `offset` of its file (pwrite(2)),
    /// as ``writeAll(_:to:at:)-([UInt8],_,_)`` does for an array: bytes in place (a run of
    /// records, issue 19's records file).
    ///
    /// - Throws: ``SystemCallError`` (`pwrite`) on the first error other than `EINTR`; some bytes
    ///   may be written.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int) throws(SystemCallError) {
        var written = 0
        while written < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written, off_t(offset + written))
            if count < 0 {
                if errno == EINTR { continue }
                throw .lastError(of: "pwrite")
            }
            written += count
        }
    }

    /// Reads `descriptor` to its end. O(bytes read).
    ///
    /// - Throws: ``SystemCallError`` (`read`) on the first error other than `EINTR`.
    public static func readAll(from descriptor: Int32) throws(SystemCallError) -> [UInt8] {
        var bytes: [UInt8] = []
        try self.forEachBlock(of: descriptor, size: 1 << 16) { block throws(SystemCallError) in bytes += block }
        return bytes
    }

    /// Copies `source`, from where it stands to its end, to `target`, 1 MiB at a time: a file
    /// printed without holding it whole.
    ///
    /// - Throws: ``SystemCallError`` (`read` or `write`) on the first error other than `EINTR`.
    public static func copyAll(from source: Int32, to target: Int32) throws(SystemCallError) {
        try self.forEachBlock(of: source, size: 1 << 20) { block throws(SystemCallError) in try self.writeAll(Array(block), to: target) }
    }

    /// Reads `descriptor` to its end in blocks of at most `size` bytes, each handed to `body`.
    private static func forEachBlock(
        of descriptor: Int32, size: Int, _ body: (ArraySlice<UInt8>) throws(SystemCallError) -> Void
    ) throws(SystemCallError) {
        var block = [UInt8](repeating: 0, count: size)
        while true {
            let count = block.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .lastError(of: "read")
            }
            if count == 0 { return }
            try body(block[..<count])
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
