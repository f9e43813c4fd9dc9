import ArgumentParser

/// Benchmarks of ListSync, each side by side with a baseline in the same run.
@main
struct ListSyncBenchmarks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listsync-benchmarks",
        abstract: "Measure ListSync against baselines in the same run.",
        subcommands: [Engine.self, Formats.self, Latency.self, Sink.self, Incremental.self, NATS.self, Profile.self, FormatsRead.self, MemoryProbeCommand.self, FormatsMemoryProbe.self],
        defaultSubcommand: Engine.self
    )

    struct Engine: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "engine",
            abstract: "ListDiff against Swift's difference(from:) on DifferenceKit's workloads."
        )

        @Option(help: "Timed runs of ListDiff per workload (the median is reported).")
        var runs = 21

        @Option(help: "Timed runs of the baseline per workload (at least 7).")
        var baselineRuns = 7

        @Option(help: "Workloads to run: \(EngineWorkload.allCases.map(\.rawValue).joined(separator: ", ")).")
        var workload: [String] = EngineWorkload.allCases.map(\.rawValue)

        func run() throws {
            let benchmark = EngineBenchmark(runs: runs, baselineRuns: baselineRuns)
            var results: [EngineBenchmark.Result] = []
            for name in workload {
                guard let workload = EngineWorkload(rawValue: name) else {
                    throw ValidationError("unknown workload \(name)")
                }
                print("- \(workload.rawValue): \(workload.summary)")
                results.append(benchmark.run(workload))
            }
            print()
            print(EngineBenchmark.table(results).markdown)
        }
    }

    struct Profile: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "profile",
            abstract: "Run ListDiff alone on one workload many times, for a profiler (perf record).",
            shouldDisplay: false
        )

        @Argument var workload: String
        @Option var runs = 1000

        func run() throws {
            guard let workload = EngineWorkload(rawValue: workload) else {
                throw ValidationError("unknown workload \(workload)")
            }
            let seconds = EngineBenchmark.profile(workload, runs: runs)
            print("\(workload.rawValue): median \(seconds.milliseconds)")
        }
    }

    struct MemoryProbeCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "memory-probe",
            abstract: "Print the peak memory growth of one diff, in bytes (used by the other benchmarks).",
            shouldDisplay: false
        )

        @Argument var workload: String
        @Argument var engine: String

        func run() throws {
            guard let workload = EngineWorkload(rawValue: workload) else {
                throw ValidationError("unknown workload \(workload)")
            }
            print(EngineBenchmark.probeMemory(workload, engine: engine).map(String.init) ?? "")
        }
    }
}
