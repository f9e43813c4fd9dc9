import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reading a configuration file's bytes.
enum ConfigurationFile {
    /// Configuration files are small; a bigger "file" is a mistake such as `--config /dev/zero`.
    static let maximumSize = 4 << 20

    /// The whole contents of the file at `path`.
    ///
    /// - Throws: ``SystemCallError`` from `open` or `read`, or `EFBIG` past ``maximumSize``.
    static func contents(of path: String) throws(SystemCallError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .lastError(of: "open") }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .lastError(of: "read")
            }
            if count == 0 { return contents }
            contents.append(contentsOf: chunk[..<count])
            guard contents.count <= Self.maximumSize else { throw SystemCallError(call: "read", code: EFBIG) }
        }
    }
}
