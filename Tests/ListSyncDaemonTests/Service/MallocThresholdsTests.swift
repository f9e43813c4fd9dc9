import Foundation
import Testing
import DurableFiles

@Suite struct MallocThresholdsTests {
    /// Whether the block malloc returned at `pointer` has its own mapping (glibc puts an mmapped
    /// block's 16-byte header at the start of the mapping): one that `free` gives back.
    private static func hasOwnMapping(_ pointer: UnsafeMutableRawPointer) throws -> Bool {
        let start = UInt(bitPattern: pointer) - 16
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        return maps.split(separator: "\n").contains { line in
            line.split(separator: "-").first.flatMap { UInt($0, radix: 16) } == start
        }
    }

    /// After a large block is freed, glibc's default raises its thresholds, and a block of a
    /// megabyte then comes from the heap (and stays resident when freed); with the daemon's
    /// policy it still gets its own mapping, as every later version's buffers do.
    @Test func aMegabyteBlockAfterALargerOneFreedHasItsOwnMapping() throws {
        #expect(MallocThresholds.returnFreedMemory.apply(tunables: nil))
        for _ in 0..<2 {
            let large = try #require(malloc(8 << 20))
            memset(large, 1, 8 << 20)
            free(large)
            let block = try #require(malloc(1 << 20))
            defer { free(block) }
            #expect(try Self.hasOwnMapping(block))
        }
    }

    /// Thresholds an administrator set through `GLIBC_TUNABLES` stay as set.
    @Test func tunablesThatSetAThresholdAreLeftAlone() {
        for tunables in ["glibc.malloc.mmap_threshold=4194304", "glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=0"] {
            #expect(!MallocThresholds.returnFreedMemory.apply(tunables: tunables))
            #expect(!MallocThresholds.keepFreedMemory.apply(tunables: tunables))
        }
    }
}
