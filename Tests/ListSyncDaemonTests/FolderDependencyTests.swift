import Foundation
import Testing

/// The daemon's folders depend one way, as a save flows (docs/ARCHITECTURE.md): `Tracker/` uses
/// `History/` and `State/`, `State/` uses `History/`, `Server/` uses `History/`, and `History/`
/// uses none of them; each may use `Metrics/`, which uses none, and `Configuration/`, which uses
/// only `NameService/` (the user and group databases, which the server asks too). Read from the
/// sources: a file uses a folder when it names a type declared there (comments aside).
@Suite struct FolderDependencyTests {
    static let folders = ["Tracker", "History", "State", "Server", "Metrics", "Configuration", "NameService"]
    /// Which of ``folders`` each may use.
    static let allowed: [String: Set<String>] = [
        "Tracker": ["History", "State", "Metrics", "Configuration"],
        "State": ["History", "Metrics", "Configuration"],
        "Server": ["History", "Metrics", "Configuration", "NameService"],
        "History": ["Metrics", "Configuration"],
        // The series and what they count: recorded from every folder, naming none of them.
        "Metrics": [],
        // What the file says, read and checked: used by every folder, using none of them (group
        // names are resolved with the databases the server asks too).
        "Configuration": ["NameService"],
        "NameService": [],
    ]

    static var daemonSources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/ListSyncDaemon").standardized
    }

    /// The Swift files of `folder`, and their text without comments.
    static func files(in folder: String) throws -> [(name: String, code: String)] {
        let directory = Self.daemonSources.appendingPathComponent(folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }.sorted()
        return try names.map { name in
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.range(of: "//").map { line[..<$0.lowerBound] } ?? line
            }.joined(separator: "\n")
            return (name, code)
        }
    }

    /// The identifiers `code` names as types of this module: not after a `.` (a member, or a
    /// type nested in another, e.g. `ReplyResult.Subscription`).
    static func identifiers(in code: String) -> Set<String> {
        var found: Set<String> = []
        var current = ""
        var afterDot = false
        var previous: Character = " "
        for character in code + " " {
            if character.isLetter || character.isNumber || character == "_" {
                if current.isEmpty { afterDot = previous == "." }
                current.append(character)
            } else if !current.isEmpty {
                if !afterDot { found.insert(current) }
                current = ""
            }
            previous = character
        }
        return found
    }

    /// The types declared at the top level of `code` (extensions aside).
    static func declaredTypes(in code: String) -> Set<String> {
        var types: Set<String> = []
        for line in code.split(separator: "\n") where !line.hasPrefix(" ") {
            let words = line.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") })
            guard let index = words.firstIndex(where: { ["class", "struct", "enum", "protocol", "actor", "typealias"].contains($0) }),
                index + 1 < words.count,
                words[..<index].allSatisfy({ ["final", "public", "internal", "private", "fileprivate", "indirect"].contains($0) })
            else { continue }
            types.insert(String(words[index + 1]))
        }
        return types
    }

    @Test func theDaemonsFoldersDependOneWay() throws {
        var declaredIn: [String: String] = [:]
        var sources: [String: [(name: String, code: String)]] = [:]
        for folder in Self.folders {
            sources[folder] = try Self.files(in: folder)
            for file in sources[folder] ?? [] {
                for type in Self.declaredTypes(in: file.code) { declaredIn[type] = folder }
            }
        }
        // The reading works: each folder declares types, e.g. these.
        #expect(declaredIn["WatchFeed"] == "History" && declaredIn["WatchStateStore"] == "State")
        #expect(declaredIn["FileTracker"] == "Tracker" && declaredIn["ConnectionHandler"] == "Server")
        #expect(declaredIn["DaemonConfiguration"] == "Configuration" && declaredIn["AccountDatabase"] == "NameService")
        var uses: [String] = []
        for folder in Self.folders {
            for file in sources[folder] ?? [] {
                for name in Self.identifiers(in: file.code).sorted() {
                    guard let other = declaredIn[name], other != folder, !(Self.allowed[folder] ?? []).contains(other) else { continue }
                    uses.append("\(folder)/\(file.name) uses \(other)/\(name)")
                }
            }
        }
        #expect(uses == [], "folders used against the direction of the flow")
    }
}
