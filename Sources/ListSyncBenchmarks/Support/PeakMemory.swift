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

/// Runs one measurement of peak memory in a child process of this benchmark
/// binary, so that each measurement starts from a fresh heap.
enum MemoryProbe {
    /// The peak memory growth the child reports for `arguments`, or nil.
    static func run(_ arguments: [String]) -> Int? {
        output(arguments)?
            .split(separator: "\n").last
            .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// What a child process of this benchmark binary, run with `arguments`,
    /// prints on standard output; nil when it cannot be started or fails.
    static func output(_ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            return nil
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
