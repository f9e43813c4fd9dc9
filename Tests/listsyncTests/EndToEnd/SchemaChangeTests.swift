import ListFormats
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// Field names are part of what is published (issue 10 items 1 and 2): after a column or
    /// member rename, and after edits of ignored fields, every mirror — `listsync mirror` in each
    /// format and the Python client — equals the file and what `listsync snapshot` prints at the
    /// same cursor, each version proven by its digest.
    @Suite struct SchemaChangeTests {
        /// The repository's `examples/python/mirror.py`.
        static let pythonMirror = RepositoryFiles.path("examples/python/mirror.py")

        /// A table of 500 companies with 8 columns, like the S&P 500 list's history: version 0
        /// and 2 call the second column `Security`, version 1 `Company` (with one founding year
        /// corrected), version 3 is back to `Security` with a company gone and one added.
        static func companies(_ version: Int) -> String {
            let sectors = [
                ("Industrials", "Aerospace & Defense"), ("Health Care", "Health Care Equipment"),
                ("Information Technology", "Application Software"), ("Financials", "Regional Banks"),
                ("Energy", "Oil & Gas Exploration & Production"), ("Utilities", "Electric Utilities"),
                ("Consumer Staples", "Packaged Foods & Meats"), ("Real Estate", "Office REITs"),
            ]
            let cities = ["Chicago, Illinois", "Dallas, Texas", "New York City, New York", "Cupertino, California", "Boston, Massachusetts"]
            let names = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Tyrell", "Cyberdyne"]
            let suffixes = ["Inc.", "Corporation", "Holdings", "Group", "\"The\" Company", "plc"]
            var rows: [String] = []
            for index in 0..<500 where !(version == 3 && index == 17) {
                let symbol = String(UnicodeScalar(UInt8(65 + index % 26))) + String(UnicodeScalar(UInt8(65 + index / 26 % 26))) + "\(index / 676)"
                let (sector, industry) = sectors[index % sectors.count]
                var security = "\(names[index % names.count]) \(names[index / 7 % names.count]) \(suffixes[index % suffixes.count])"
                if security.contains("\"") { security = "\"" + security.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
                let founded = version == 1 && index == 40 ? 1901 : 1850 + index % 170
                let added = "\(1957 + index % 68)-0\(1 + index % 9)-1\(index % 10)"
                rows.append(
                    "\(symbol),\(security),\(sector),\"\(industry)\",\"\(cities[index % cities.count])\",\(added),\(String(format: "%010d", 1800 + index * 37)),\(founded)")
            }
            if version == 3 { rows.insert("ZZZ9,Newco Inc.,Energy,Oil,\"Dallas, Texas\",2025-01-01,0000099999,2001", at: 250) }
            let second = version == 1 ? "Company" : "Security"
            let header = "Symbol,\(second),GICS Sector,GICS Sub-Industry,Headquarters Location,Date added,CIK,Founded"
            return ([header] + rows).joined(separator: "\n") + "\n"
        }

        /// 250 nested country records: version 1 changes every record's ignored fields (and one
        /// capital), version 2 renames a member in every record (`callingCode` → `idd`), version
        /// 3 renames it back.
        static func countries(_ version: Int) -> String {
            let regions = ["Europe", "Asia", "Africa", "Americas", "Oceania"]
            var records: [String] = []
            for index in 0..<250 {
                let code = String(UnicodeScalar(UInt8(65 + index % 26))) + String(UnicodeScalar(UInt8(65 + index / 26 % 26))) + "X"
                let calling = version == 2 ? "idd" : "callingCode"
                let capital = version >= 1 && index == 3 ? "New Capital" : "Capital \(index)"
                let stamp = version >= 1 ? "2026-11-25T12:00:\(index % 60)Z" : "2026-01-01T00:00:00Z"
                records.append(
                    #"{"cca3":"\#(code)","name":{"common":"Country \#(index)","official":"Republic of \#(index)"},"capital":["\#(capital)"],"#
                        + #""region":"\#(regions[index % regions.count])","\#(calling)":"+\#(index + 1)","population":\#(index * 12345),"#
                        + #""meta":{"updated_at":"\#(stamp)","source":"restcountries"},"updated_at":"\#(stamp)"}"#)
            }
            return "[\n" + records.joined(separator: ",\n") + "\n]\n"
        }

        /// Starts `listsync mirror` into each of `files` and the Python mirror into `py.json`,
        /// each waited for until it holds the first version; returns each mirror file with its
        /// process.
        static func startMirrors(_ harness: EndToEndHarness, _ files: [String]) async throws -> [(file: String, process: ChildProcess)] {
            var mirrors: [(file: String, process: ChildProcess)] = []
            for file in files {
                mirrors.append((file, try await harness.startMirror(file)))
            }
            let python = try harness.process(
                "/usr/bin/env",
                ["python3", Self.pythonMirror, "--socket", harness.socketPath, harness.watches[0].name, "--output", harness.path("py.json")])
            try await harness.waitUntilMirrored("py.json", equals: harness.watches[0].file, "the Python mirror's first snapshot")
            return mirrors + [("py.json", python)]
        }

        /// After version `seq` is published: every mirror comes to equal the file by applying the
        /// changeset — none had to resynchronise, so every digest checked matched — and
        /// `listsync snapshot` prints the same list.
        static func expectAllAgree(
            _ harness: EndToEndHarness, _ mirrors: [(file: String, process: ChildProcess)], seq: UInt64, _ what: String
        ) async throws {
            try await harness.waitForVersion(seq, of: harness.watches[0].name)
            let file = try #require(harness.document(harness.watches[0].file))
            for mirror in mirrors {
                try await harness.waitUntilMirrored(mirror.file, equals: harness.watches[0].file, what)
                #expect(!mirror.process.errorOutput.contains("resynchroni"), "\(mirror.file) (\(what)): \(mirror.process.errorOutput)")
            }
            let snapshot = try await harness.run("snapshot", [harness.watches[0].name, "--output-format", "json"])
            #expect(snapshot.status == 0, "\(snapshot.error)")
            try FileContent.write(snapshot.output, to: harness.path("snapshot-\(seq).json"))
            #expect(harness.document("snapshot-\(seq).json") == file, "the snapshot at \(seq) (\(what))")
        }

        @Test func aCSVColumnRenamedAndRenamedBack() async throws {
            let harness = try EndToEndHarness(watches: [
                EndToEndHarness.Watch(name: "companies", file: "companies.csv", key: ["Symbol"], sectionBy: nil)
            ])
            try FileContent.write(Self.companies(0), to: harness.watched)
            try await harness.startDaemon()
            let mirrors = try await Self.startMirrors(harness, ["m.json", "m.csv", "m.ndjson"])
            let steps = ["Security renamed to Company", "Company renamed back to Security", "a company replaced, header kept"]
            for (version, step) in zip(1..., steps) {
                try await harness.save(Self.companies(version))
                try await Self.expectAllAgree(harness, mirrors, seq: UInt64(version), step)
            }
            // The CSV mirror's header follows too.
            #expect(readFile(harness.path("m.csv")).hasPrefix("Symbol,Security,GICS Sector,"))
        }

        @Test func jsonMemberRenamesAndIgnoredFields() async throws {
            let harness = try EndToEndHarness(watches: [
                EndToEndHarness.Watch(
                    name: "countries", file: "countries.json", key: ["cca3"], sectionBy: nil, ignore: ["updated_at", "/meta/updated_at"])
            ])
            try FileContent.write(Self.countries(0), to: harness.watched)
            try await harness.startDaemon()
            let mirrors = try await Self.startMirrors(harness, ["m.json", "m.ndjson"])
            #expect(!readFile(harness.path("m.json")).contains("updated_at"), "ignored fields are not published")
            #expect(readFile(harness.path("m.json")).contains("restcountries"), "the rest of a member whose field is ignored is")
            let steps = ["every ignored field and one capital changed", "callingCode renamed to idd", "idd renamed back"]
            for (version, step) in zip(1..., steps) {
                try await harness.save(Self.countries(version))
                try await Self.expectAllAgree(harness, mirrors, seq: UInt64(version), step)
            }
        }
    }
}
