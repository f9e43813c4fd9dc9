import ListDiff

/// ListDiff against Swift's `CollectionDifference` on the same inputs, in
/// the same run: median times, their ratio, move counts, peak memory growth.
struct EngineBenchmark {
    var runs: Int
    var baselineRuns: Int

    /// One measured workload.
    struct Result {
        var workload: EngineWorkload
        var listDiff: Double
        var difference: Double
        var inferringMoves: Double
        var listDiffMoves: (elements: Int, sections: Int)
        var inferredMoves: Int
        var listDiffMemory: Int?
        var differenceMemory: Int?
    }

    func run(_ workload: EngineWorkload) -> Result {
        switch workload {
        case .linear5k:
            let (source, target) = EngineWorkload.linear(count: 5000, deleted: 1000, inserted: 1000, shuffled: 200)
            return measure(workload, diff: { StagedChangeset(source: source, target: target) }, flatSource: source, flatTarget: target)
        case .linear100k:
            let (source, target) = EngineWorkload.linear(count: 100_000, deleted: 10_000, inserted: 10_000, shuffled: 2000)
            return measure(workload, diff: { StagedChangeset(source: source, target: target) }, flatSource: source, flatTarget: target)
        case .sectioned100x1000:
            let (source, target) = EngineWorkload.sectioned()
            return measure(
                workload,
                diff: { StagedChangeset(source: source, target: target) },
                flatSource: source.flatMap(\.elements),
                flatTarget: target.flatMap(\.elements)
            )
        case .oneUpdate1M:
            let (source, target) = EngineWorkload.oneUpdate()
            return measure(workload, diff: { StagedChangeset(source: source, target: target) }, flatSource: source, flatTarget: target)
        }
    }

    private func measure<List, Flat: Hashable>(
        _ workload: EngineWorkload,
        diff: () -> StagedChangeset<List>,
        flatSource: [Flat],
        flatTarget: [Flat]
    ) -> Result {
        let listDiff = Stopwatch.median(runs: runs, diff)
        let difference = Stopwatch.median(runs: baselineRuns) { flatTarget.difference(from: flatSource) }
        let inferred = Stopwatch.median(runs: baselineRuns) { difference.result.inferringMoves() }
        let inferredMoves = inferred.result.insertions.count { change in
            if case .insert(_, _, let associatedWith) = change { return associatedWith != nil }
            return false
        }
        return Result(
            workload: workload,
            listDiff: listDiff.seconds,
            difference: difference.seconds,
            inferringMoves: inferred.seconds,
            listDiffMoves: (
                listDiff.result.reduce(0) { $0 + $1.elementMoved.count },
                listDiff.result.reduce(0) { $0 + $1.sectionMoved.count }
            ),
            inferredMoves: inferredMoves,
            listDiffMemory: MemoryProbe.run(["memory-probe", workload.rawValue, "listdiff"]),
            differenceMemory: MemoryProbe.run(["memory-probe", workload.rawValue, "difference"])
        )
    }

    /// Peak memory growth of one diff of `workload`, measured in this process.
    static func probeMemory(_ workload: EngineWorkload, engine: String) -> Int? {
        switch workload {
        case .linear5k, .linear100k:
            let (source, target) = workload == .linear5k
                ? EngineWorkload.linear(count: 5000, deleted: 1000, inserted: 1000, shuffled: 200)
                : EngineWorkload.linear(count: 100_000, deleted: 10_000, inserted: 10_000, shuffled: 2000)
            return PeakMemory.growth {
                if engine == "listdiff" {
                    blackHole(StagedChangeset(source: source, target: target))
                } else {
                    blackHole(target.difference(from: source))
                }
            }
        case .oneUpdate1M:
            let (source, target) = EngineWorkload.oneUpdate()
            return PeakMemory.growth {
                if engine == "listdiff" {
                    blackHole(StagedChangeset(source: source, target: target))
                } else {
                    blackHole(target.difference(from: source))
                }
            }
        case .sectioned100x1000:
            let (source, target) = EngineWorkload.sectioned()
            let flatSource = source.flatMap(\.elements)
            let flatTarget = target.flatMap(\.elements)
            return PeakMemory.growth {
                if engine == "listdiff" {
                    blackHole(StagedChangeset(source: source, target: target))
                } else {
                    blackHole(flatTarget.difference(from: flatSource))
                }
            }
        }
    }

    /// The median time of ListDiff alone on `workload`.
    static func profile(_ workload: EngineWorkload, runs: Int) -> Double {
        switch workload {
        case .linear5k, .linear100k:
            let (source, target) = workload == .linear5k
                ? EngineWorkload.linear(count: 5000, deleted: 1000, inserted: 1000, shuffled: 200)
                : EngineWorkload.linear(count: 100_000, deleted: 10_000, inserted: 10_000, shuffled: 2000)
            return Stopwatch.median(runs: runs) { StagedChangeset(source: source, target: target) }.seconds
        case .sectioned100x1000:
            let (source, target) = EngineWorkload.sectioned()
            return Stopwatch.median(runs: runs) { StagedChangeset(source: source, target: target) }.seconds
        case .oneUpdate1M:
            let (source, target) = EngineWorkload.oneUpdate()
            return Stopwatch.median(runs: runs) { StagedChangeset(source: source, target: target) }.seconds
        }
    }

    static func table(_ results: [Result]) -> Table {
        var table = Table(header: [
            "workload", "ListDiff", "difference(from:)", "ratio", "+ inferringMoves()",
            "ListDiff moves (elements / sections)", "inferred moves", "ListDiff peak memory", "difference(from:) peak memory",
        ])
        for result in results {
            table.rows.append([
                result.workload.rawValue,
                result.listDiff.milliseconds,
                result.difference.milliseconds,
                (result.difference / result.listDiff).rounded(decimals: 1) + "×",
                result.inferringMoves.milliseconds,
                "\(result.listDiffMoves.elements) / \(result.listDiffMoves.sections)",
                "\(result.inferredMoves)",
                result.listDiffMemory?.mebibytes ?? "n/a",
                result.differenceMemory?.mebibytes ?? "n/a",
            ])
        }
        return table
    }
}

/// Keeps a result alive so that the optimizer can't drop the work.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
