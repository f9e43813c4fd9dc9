import Foundation
import ListSyncTestSupport
import Testing

/// Human output on a terminal is cut to the terminal's width in columns, as the terminal shows
/// them: a CJK character takes two, a combining mark none.
@Suite struct TerminalWidthTests {
    /// The columns `line` takes, for the characters these tests write: CJK ideographs and kana
    /// 2, combining diacritics 0, the rest 1.
    static func columns(_ line: Substring) -> Int {
        line.unicodeScalars.reduce(0) { total, scalar in
            switch scalar.value {
            case 0x300...0x36F: total
            case 0x3000...0x30FF, 0x4E00...0x9FFF: total + 2
            default: total + 1
            }
        }
    }

    @Test("diff --format human on a 60-column terminal: every line fits, CJK and combining marks included")
    func diffLinesFitTheTerminal() async throws {
        let files = try ScratchFiles()
        let wide = String(repeating: "漢字", count: 40)
        let combining = String(repeating: "e\u{301}", count: 100)
        try files.write("old.csv", "id,name\n1,short\n3,x\n")
        try files.write("new.csv", "id,name\n1,\(wide)\n2,\(combining)\n3,\(wide)かな\n")
        let command = "stty cols 60; '\(ListSyncProcess.binary.path)' diff old.csv new.csv --key id --format human --color never"
        let transcript = files.directory.appendingPathComponent("terminal.out").path
        let process = try ChildProcess(
            "/usr/bin/script", ["-qec", command, "/dev/null"], outputPath: transcript, errorPath: "/dev/null",
            workingDirectory: files.directory.path)
        _ = try await process.waitForExit(timeout: .seconds(60))
        let output = process.output
        let lines = output.split(separator: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 3, "\(output)")
        for line in lines {
            #expect(Self.columns(line) <= 60, "\(Self.columns(line)) columns: \(line)")
        }
        // Cut lines fill the width (a wide character that does not fit leaves one column).
        let cut = lines.filter { $0.hasSuffix("…") }
        #expect(cut.count == 3, "\(output)")
        #expect(cut.allSatisfy { Self.columns($0) >= 59 }, "\(cut.map { Self.columns($0) })")
    }
}
