import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole files with POSIX calls (no Foundation).
enum FileLoader {
    /// The bytes of the file at `path`; refuses files above `sizeLimit`.
    static func contents(ofFile path: String, sizeLimit: Int) throws(ListFormatError) -> [UInt8] {
        try withOpenFile(path) { descriptor, status throws(ListFormatError) in
            let size = Int(status.st_size)
            guard size <= sizeLimit else { throw .fileTooLarge(size: size, limit: sizeLimit) }
            return try contents(of: descriptor, size: size, path: path)
        }
    }

    /// Opens the file at `path` for reading and calls `body` with its descriptor and status;
    /// closes it after.
    static func withOpenFile<R>(
        _ path: String, _ body: (Int32, stat) throws(ListFormatError) -> R
    ) throws(ListFormatError) -> R {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotRead(path: path, errno: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .cannotRead(path: path, errno: errno) }
        return try body(descriptor, status)
    }

    /// The first `size` bytes of the open file `descriptor` (fewer if it ends sooner).
    static func contents(of descriptor: Int32, size: Int, path: String) throws(ListFormatError) -> [UInt8] {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else { return }
            HugePages.advise(base, byteCount: size)
            while initialized < size {
                // read(2) returns at most about 2 GiB per call on Linux.
                let result = read(descriptor, base + initialized, min(size - initialized, 1 << 30))
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if result == 0 { return }  // The file shrank while being read.
                initialized += result
            }
        }
        guard failure == 0 else { throw .cannotRead(path: path, errno: failure) }
        return bytes
    }
}
