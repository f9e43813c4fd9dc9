import Glibc

extension EndToEndHarness {
    /// Runs `listsync SUBCOMMAND --socket … ARGUMENTS` (or another client program, `executable`)
    /// to its end with its standard output a FIFO read here, and reads its peak resident memory
    /// (`VmHWM`, KiB) when the first byte of output arrives: a command that prints only once it
    /// has everything (`listsync snapshot`, which prints a verified list) is then past its peak
    /// but still alive — it cannot exit before its output is read.
    package func runMeasuringPeakMemory(
        _ subcommand: String, _ arguments: [String], executable: String? = nil, timeout: Duration = .seconds(120)
    ) async throws -> (status: Int32, output: [UInt8], peakKiB: Int, error: String) {
        let fifo = self.path("output-\(UInt64.random(in: 0...UInt64.max)).fifo")
        guard mkfifo(fifo, 0o600) == 0 else { throw TestFailure("mkfifo \(fifo): errno \(errno)") }
        defer { unlink(fifo) }
        // Opened first, without waiting for a writer: the client's open then does not block.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard reader >= 0 else { throw TestFailure("open \(fifo): errno \(errno)") }
        defer { close(reader) }
        let client =
            if let executable {
                try self.process(executable, arguments, outputPath: fifo)
            } else {
                try self.client(subcommand, arguments, outputPath: fifo)
            }
        var output: [UInt8] = []
        var peakKiB: Int?
        var block = [UInt8](repeating: 0, count: 1 << 16)
        let deadline = ContinuousClock.now + timeout
        while true {
            let count = block.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
            if count > 0 {
                if peakKiB == nil { peakKiB = try client.memoryKiB("VmHWM") }
                output += block[..<count]
                continue
            }
            // No writer yet (0 before the client opened its output) or nothing written yet
            // (EAGAIN); 0 after output came, or once the client ended: its output is closed.
            if count == 0, !output.isEmpty || client.exitStatus != nil { break }
            guard ContinuousClock.now < deadline else { throw TestFailure("\(subcommand) did not finish within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
        let status = try await client.waitForExit(timeout: .seconds(30))
        return (status, output, peakKiB ?? 0, client.errorOutput)
    }
}
