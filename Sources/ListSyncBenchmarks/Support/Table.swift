/// Formats benchmark results as a Markdown table.
struct Table {
    var header: [String]
    var rows: [[String]] = []

    var markdown: String {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: " | ") + " |"
        }
        return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line))
            .joined(separator: "\n")
    }
}

extension Double {
    /// Seconds as milliseconds with three decimals.
    var milliseconds: String {
        let value = (self * 1_000_000).rounded() / 1000
        return "\(value) ms"
    }

    func rounded(decimals: Int) -> String {
        var factor = 1.0
        for _ in 0..<decimals { factor *= 10 }
        return "\((self * factor).rounded() / factor)"
    }
}

extension Int {
    var mebibytes: String {
        (Double(self) / 1_048_576).rounded(decimals: 2) + " MiB"
    }
}
