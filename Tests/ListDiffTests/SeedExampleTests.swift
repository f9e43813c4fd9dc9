import ListDiff
import Testing


/// The worked examples of the documents ListDiff grew from (shared/seeds).
@Suite struct SeedExampleTests {
    @Test func lcsExampleFromTheSeeds() throws {
        let source = ["A", "D", "F", "G", "T"]
        let target = ["A", "F", "O", "X", "T"]
        let changeset = StagedChangeset(source: source, target: target)

        #expect(changeset.count == 2)
        #expect(changeset[0].elementDeleted == [ElementPath(element: 1, section: 0), ElementPath(element: 3, section: 0)])
        #expect(changeset[0].data == ["A", "F", "T"])
        #expect(changeset[1].elementInserted == [ElementPath(element: 2, section: 0), ElementPath(element: 3, section: 0)])
        #expect(changeset[1].elementMoved.isEmpty)
        #expect(changeset[1].data == target)
        #expect(try changeset.apply(to: source) == target)
    }

    @Test func kitToKat() throws {
        let source = Array("kit")
        let target = Array("kat")
        let changeset = StagedChangeset(source: source, target: target)

        // Identity is the character itself, so "i" leaves and "a" arrives.
        #expect(changeset.count == 2)
        #expect(changeset[0].elementDeleted == [ElementPath(element: 1, section: 0)])
        #expect(changeset[0].data == Array("kt"))
        #expect(changeset[1].elementInserted == [ElementPath(element: 1, section: 0)])
        #expect(changeset[1].data == target)
        #expect(try changeset.apply(to: source) == target)
    }

    @Test func fastDiffReplacesEverything() throws {
        let source = ["A", "B"]
        let target = ["C", "D"]
        let changeset = StagedChangeset(source: source, target: target)

        #expect(changeset.count == 2)
        #expect(changeset[0].elementDeleted == [ElementPath(element: 0, section: 0), ElementPath(element: 1, section: 0)])
        #expect(changeset[0].data.isEmpty)
        #expect(changeset[1].elementInserted == [ElementPath(element: 0, section: 0), ElementPath(element: 1, section: 0)])
        #expect(try changeset.apply(to: source) == target)
    }

    enum Model: Differentiable {
        case a, b, c
    }

    @Test func differenceKitSectionedExample() throws {
        let source: [ArraySection<Model, String>] = [
            ArraySection(model: .a, elements: ["A", "B"]),
            ArraySection(model: .b, elements: ["C"]),
        ]
        let target: [ArraySection<Model, String>] = [
            ArraySection(model: .c, elements: ["D", "E"]),
            ArraySection(model: .a, elements: ["A"]),
            ArraySection(model: .b, elements: ["B", "C"]),
        ]
        let changeset = StagedChangeset(source: source, target: target)

        // Stage 3: section c inserted at 0; stage 4: B moves from a to b.
        #expect(changeset.count == 2)
        #expect(changeset[0].sectionInserted == [0])
        #expect(changeset[0].sectionMoved.isEmpty)
        #expect(changeset[0].data == [
            ArraySection(model: .c, elements: ["D", "E"]),
            ArraySection(model: .a, elements: ["A", "B"]),
            ArraySection(model: .b, elements: ["C"]),
        ])
        #expect(changeset[1].elementMoved.count == 1)
        #expect(changeset[1].elementMoved.first?.source == ElementPath(element: 1, section: 1))
        #expect(changeset[1].elementMoved.first?.target == ElementPath(element: 0, section: 2))
        #expect(changeset[1].elementInserted.isEmpty)
        #expect(changeset[1].data == target)
        #expect(try changeset.apply(to: source) == target)
    }
}
