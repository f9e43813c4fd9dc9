import Foundation

/// Peak memory growth of one piece of code, as Linux reports it: the
/// process's resident set high-water mark (`VmHWM`), reset just before
/// through `/proc/self/clear_refs`, less the resident set before.
///
/// Measure in a fresh process (see ``MemoryProbe``): a process that already
/// freed memory reuses it without growing.
enum PeakMemory {
    static func growth(of body: () -> Void) -> Int? {
        guard let before = status("VmRSS"), resetHighWaterMark() else { return nil }
        body()
        guard let peak = status("VmHWM") else { return nil }
        return max(0, peak - before)
    }

    private static func resetHighWaterMark() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// A line of /proc/self/status, in bytes.
    private static func status(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return number.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}
