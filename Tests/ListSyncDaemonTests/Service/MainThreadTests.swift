import Glibc
import ListSyncTestSupport
import Testing

/// The daemon's main thread waits in `pause()` (Sources/listsyncd/main.swift) rather than in
/// dispatch_main(), whose pthread_exit() unwinds the main thread through the binary's unwind
/// tables: read from `/proc/PID/syscall` of a real daemon.
extension EndToEndTests {
    @Suite struct MainThread {
        /// The number of the system call the main thread of `pid` is blocked in.
        static func blockingSystemCall(of pid: pid_t) throws -> Int? {
            let line = try FileContent.read("/proc/\(pid)/task/\(pid)/syscall")
            return line.split(separator: " ").first.flatMap { Int($0) }
        }

        /// A loaded daemon's main thread sits in pause(), not in the rt_sigsuspend() that
        /// dispatch_main() leaves it in after unwinding it.
        @Test(.enabled(if: Self.pauseNumber != nil, "pause(2) is a system call of its own on x86_64 only"))
        func anIdleDaemonsMainThreadWaitsInPause() async throws {
            let (harness, daemon) = try await Arenas.started()
            try await eventually("the main thread blocks in pause()") {
                try Self.blockingSystemCall(of: daemon.pid) == Self.pauseNumber
            }
            #expect(try await harness.stopDaemon() == 0)
        }

        /// `SYS_pause` where the architecture has it.
        static var pauseNumber: Int? {
            #if arch(x86_64)
            return 34
            #else
            return nil
            #endif
        }
    }
}
