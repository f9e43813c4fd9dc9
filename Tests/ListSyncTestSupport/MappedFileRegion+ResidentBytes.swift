import DurableFiles
import Glibc

extension MappedFileRegion {
    /// How many bytes of the region's mapping are in this process's resident set (the mapping's
    /// `Rss` in `/proc/self/smaps`): which of its pages a reader left mapped, not whether the
    /// file's pages are in the page cache (`mincore` would say that). Issue 19: a version held
    /// as mappings must not stay resident after a pass over it.
    public func residentBytes() throws -> Int {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let address = Int(bitPattern: self.buffer.baseAddress) / pageSize * pageSize
        let start = String(address, radix: 16) + "-"
        let lines = try FileContent.read("/proc/self/smaps").split(separator: "\n")
        guard let header = lines.firstIndex(where: { $0.hasPrefix(start) }),
            let rss = lines[header...].first(where: { $0.hasPrefix("Rss:") }),
            let kilobytes = Int(rss.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw TestFailure("no mapping at \(start) in /proc/self/smaps") }
        return kilobytes * 1024
    }
}
