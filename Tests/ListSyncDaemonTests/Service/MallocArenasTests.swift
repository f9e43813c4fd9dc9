import DurableFiles
import Glibc
import ListSyncTestSupport
import Testing

/// The daemon's malloc arenas (``MallocArenas``): read from `/proc/PID/maps` of a real daemon.
extension EndToEndTests {
    @Suite struct Arenas {
        /// The glibc heaps of `pid` other than the main one (its arenas besides the main heap):
        /// each is a reservation of 64 MiB (`HEAP_MAX_SIZE` on 64 bits) at an address aligned to
        /// 64 MiB, its used start read-write and the rest `---p`, with no file behind either.
        static func arenaHeaps(of pid: pid_t) throws -> Int {
            let heapSize = 64 << 20
            let maps = try FileContent.read("/proc/\(pid)/maps")
            let mappings: [(start: Int, end: Int, permissions: Substring, anonymous: Bool)] = maps.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                let range = fields.first?.split(separator: "-") ?? []
                guard fields.count >= 5, range.count == 2, let start = Int(range[0], radix: 16), let end = Int(range[1], radix: 16) else { return nil }
                return (start, end, fields[1], fields.count == 5)
            }
            return zip(mappings, mappings.dropFirst()).filter { used, reserved in
                used.anonymous && reserved.anonymous && used.start % heapSize == 0 && used.permissions == "rw-p"
                    && reserved.start == used.end && reserved.permissions == "---p" && reserved.end == used.start + heapSize
            }.count
        }

        /// A daemon with one watch of a two-row file, loaded (its file read on the blocking pool,
        /// a client served on an event loop), with `environment` added to the test's.
        static func started(environment: [String: String] = [:]) async throws -> (DaemonHarness, DaemonProcess) {
            let harness = try DaemonHarness()
            try FileOperations.write("id,name\n1,a\n2,b\n", to: harness.path("list.csv"))
            try harness.writeConfig(["name = \"list\"\npath = \"\(harness.path("list.csv"))\"\nkey = [\"id\"]"])
            try await harness.startDaemon(environment: environment)
            return (harness, try #require(harness.daemon))
        }

        /// A daemon with one small watch, loaded: every thread allocates from the main heap.
        @Test func everyThreadOfAnIdleDaemonAllocatesFromTheMainHeap() async throws {
            let (harness, daemon) = try await Self.started()
            #expect(try Self.arenaHeaps(of: daemon.pid) == 0)
            #expect(try await harness.stopDaemon() == 0)
        }

        /// `MALLOC_ARENA_MAX` set by an administrator stands: threads get arenas of their own up
        /// to it (the main heap counted).
        @Test func anAdministratorsArenaLimitStands() async throws {
            let (harness, daemon) = try await Self.started(environment: ["MALLOC_ARENA_MAX": "3"])
            #expect(try Self.arenaHeaps(of: daemon.pid) == 2)
            #expect(try await harness.stopDaemon() == 0)
        }
    }
}

@Suite struct MallocArenasTests {
    /// A limit set through `GLIBC_TUNABLES` or `MALLOC_ARENA_MAX` is left as set.
    @Test func aLimitAnAdministratorSetIsLeftAlone() {
        #expect(!MallocArenas.daemon.apply(tunables: "glibc.malloc.arena_max=4", arenaMaxVariable: nil))
        #expect(!MallocArenas.daemon.apply(tunables: "glibc.malloc.check=0:glibc.malloc.arena_max=2", arenaMaxVariable: nil))
        #expect(!MallocArenas.daemon.apply(tunables: nil, arenaMaxVariable: "8"))
    }
}
