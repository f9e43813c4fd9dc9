import Glibc
import ListSyncTestSupport
import Testing

/// The daemon carries its Swift runtime and FoundationEssentials inside its binary (listsyncd's
/// linker settings in Package.swift): read from `/proc/PID/maps` of a real daemon.
extension EndToEndTests {
    @Suite struct LinkedRuntime {
        /// The file names of the shared objects mapped into `pid`.
        static func mappedLibraries(of pid: pid_t) throws -> Set<String> {
            let maps = try FileContent.read("/proc/\(pid)/maps")
            return Set(
                maps.split(separator: "\n").compactMap { line -> String? in
                    guard let slash = line.firstIndex(of: "/") else { return nil }
                    let name = line[slash...].split(separator: "/").last.map(String.init) ?? ""
                    return name.contains(".so") ? name : nil
                })
        }

        /// A loaded daemon with one small watch maps no shared Swift library (the standard library,
        /// Concurrency, Dispatch, …) and no Foundation, FoundationEssentials or ICU: 10 MiB of
        /// their code and relocated data each daemon held resident before (docs/BENCHMARKS.md).
        @Test func aDaemonMapsNoSharedSwiftOrFoundationLibrary() async throws {
            let (harness, daemon) = try await Arenas.started()
            let libraries = try Self.mappedLibraries(of: daemon.pid)
            // The C libraries it does use are seen, so the maps were read as meant.
            #expect(libraries.contains { $0.hasPrefix("libc.so") })
            #expect(libraries.contains { $0.hasPrefix("libinotifytools.so") })
            let runtime = libraries.filter { name in
                ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime"].contains {
                    name.hasPrefix($0)
                }
            }
            #expect(runtime.isEmpty, "mapped: \(runtime.sorted())")
            #expect(try await harness.stopDaemon() == 0)
        }
    }
}
