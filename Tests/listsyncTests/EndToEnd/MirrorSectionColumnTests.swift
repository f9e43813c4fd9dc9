import Glibc
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// A CSV mirror of a JSON object of arrays keeps the sections in a column of their own; a
    /// record that gains a member of that column's name does not stop it.
    @Suite struct MirrorSectionColumnTests {
        @Test func aRecordThatGainsTheSectionColumnsNameDoesNotStopTheMirror() async throws {
            let watch = EndToEndHarness.Watch(name: "products", file: "products.json", key: ["sku"], sectionBy: nil)
            let harness = try EndToEndHarness(watches: [watch])
            try FileContent.write(#"{"fruit":[{"sku":"A1","name":"apple"}],"veg":[{"sku":"B2","name":"bean"}]}"#, to: harness.watched)
            try await harness.startDaemon()
            let mirror = try harness.client("mirror", ["products", "--output", harness.path("mirror.csv")])
            try await eventually("the mirror has the snapshot") {
                readFile(harness.path("mirror.csv")) == "section,sku,name\nfruit,A1,apple\nveg,B2,bean\n"
            }

            try await harness.save(#"{"fruit":[{"sku":"A1","name":"apple","section":"x"}],"veg":[{"sku":"B2","name":"bean"}]}"#)
            try await harness.waitForVersion(1)
            try await eventually("the mirror has version 1, the sections in section_2") {
                readFile(harness.path("mirror.csv")) == "section_2,sku,name,section\nfruit,A1,apple,x\nveg,B2,bean,\n"
            }
            // The warning may reach standard error a moment after the file is written.
            try await eventually("the mirror warns of the moved section column") {
                mirror.errorOutput.contains(#"the records now have a member "section": \#(harness.path("mirror.csv")) keeps the sections in column "section_2""#)
            }

            try await harness.save(#"{"fruit":[{"sku":"A1","name":"apple"}],"veg":[{"sku":"B2","name":"beans"}]}"#)
            try await harness.waitForVersion(2)
            try await eventually("the mirror has version 2, the sections in section again") {
                readFile(harness.path("mirror.csv")) == "section,sku,name\nfruit,A1,apple\nveg,B2,beans\n"
            }
            try await eventually("the mirror says the section column is back") {
                mirror.errorOutput.contains(#"keeps the sections in column "section" again"#)
            }
            #expect(mirror.exitStatus == nil, "\(mirror.errorOutput)")
        }
    }
}
