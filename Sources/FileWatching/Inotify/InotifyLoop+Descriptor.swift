import Glibc

extension InotifyLoop {
    /// Finds libinotifytools' inotify descriptor, which the library keeps in a private static,
    /// and the descriptor of its watch on `file`.
    ///
    /// `file` is the thread's private wake-up pipe, just watched through the library, so the only
    /// inotify instance in the process whose `/proc/self/fdinfo` lists that inode is the library's.
    /// Lines look like `inotify wd:1 ino:3b2 sdev:e mask:2 …`, numbers in hexadecimal, `sdev` in
    /// the kernel's device encoding.
    static func locateLibraryDescriptor(watching file: FileID) -> (Int32, WatchDescriptor)? {
        guard let directory = opendir("/proc/self/fdinfo") else { return nil }
        defer { closedir(directory) }
        let wantedDevice = kernelDeviceNumber(file.device)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name), let info = readSmallFile("/proc/self/fdinfo/\(name)") else { continue }
            for line in info.split(separator: "\n") where line.hasPrefix("inotify ") {
                var fields: [Substring: UInt64] = [:]
                for field in line.dropFirst("inotify ".count).split(separator: " ") {
                    let parts = field.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, let value = UInt64(parts[1], radix: 16) {
                        fields[parts[0]] = value
                    }
                }
                if fields["ino"] == file.inode, fields["sdev"] == wantedDevice,
                   let watch = fields["wd"].flatMap({ Int32(exactly: $0) }) {
                    return (descriptor, WatchDescriptor(rawValue: watch))
                }
            }
        }
        return nil
    }

    /// Converts a `st_dev` (glibc's encoding) to the kernel's `MAJOR << 20 | MINOR`, as fdinfo prints it.
    private static func kernelDeviceNumber(_ device: UInt64) -> UInt64 {
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        return (major << 20) | minor
    }

    private static func readSmallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            contents.append(contentsOf: buffer[..<count])
        }
        return String(decoding: contents, as: UTF8.self)
    }
}
