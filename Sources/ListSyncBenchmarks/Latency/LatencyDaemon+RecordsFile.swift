import Foundation

extension LatencyDaemon {
    /// The daemon's records files (issue 19: a saved version's records mapped from an unnamed
    /// file in the watch's state directory): their size, and how much of them is in the page
    /// cache now (`mincore` over a mapping of each, through `/proc/PID/fd`). Page cache is memory
    /// the kernel can write back and drop, not the daemon's resident set; reported beside it so
    /// that it is not left out. `(0, 0)` for a daemon with none (an older build, or
    /// `LISTSYNCD_MAP_SAVED_RECORDS=0`).
    var recordsFiles: (size: Int, cached: Int) {
        let descriptors = "/proc/\(self.process.processIdentifier)/fd"
        let state = self.directory.appendingPathComponent("state").path
        var total = (size: 0, cached: 0)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + name),
                target.hasPrefix(state + "/"), target.hasSuffix(" (deleted)"),
                let file = target.split(separator: "/").last, file.hasPrefix("#") || file.hasPrefix("records.tmp")
            else { continue }
            let descriptor = open(descriptors + "/" + name, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var status = stat()
            guard fstat(descriptor, &status) == 0, status.st_size > 0 else { continue }
            let size = Int(status.st_size)
            total.size += size
            guard let address = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0), address != MAP_FAILED else { continue }
            defer { munmap(address, size) }
            let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
            var pages = [UInt8](repeating: 0, count: (size + pageSize - 1) / pageSize)
            guard mincore(address, size, &pages) == 0 else { continue }
            total.cached += pages.reduce(0) { $0 + Int($1 & 1) } * pageSize
        }
        return total
    }
}
