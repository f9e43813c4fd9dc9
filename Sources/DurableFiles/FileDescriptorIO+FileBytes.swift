#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileDescriptorIO {
    /// Writes every byte of `bytes` to `descriptor`, piece by piece from their storage (never
    /// gathered into one buffer): a version that shares its storage with another is written
    /// without a copy (a mapped piece a stretch at a time, ``FileBytes/forEachStretch(_:)``).
    /// With `offset`, from that byte of the file (pwrite(2)), whatever the descriptor's
    /// position; else at its position (write(2)).
    ///
    /// - Throws: ``SystemCallError`` (`write` or `pwrite`) on the first error other than `EINTR`;
    ///   some bytes may be written.
    public static func writeAll(_ bytes: FileBytes, to descriptor: Int32, at offset: Int? = nil) throws(SystemCallError) {
        // A mapped piece a stretch at a time, each let go of once written.
        try bytes.forEachStretch { stretchStart, buffer throws(SystemCallError) in
            let start = offset.map { $0 + stretchStart }
            guard let base = buffer.baseAddress else { return }
            var written = 0
            while written < buffer.count {
                let count =
                    if let start {
                        pwrite(descriptor, base + written, buffer.count - written, off_t(start + written))
                    } else {
                        pieceWrite(descriptor, base + written, buffer.count - written)
                    }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw .lastError(of: start == nil ? "write" : "pwrite")
                }
                written += count
            }
        }
    }
}

/// write(2), named apart from ``FileDescriptorIO``'s own `writeAll`.
private func pieceWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}
