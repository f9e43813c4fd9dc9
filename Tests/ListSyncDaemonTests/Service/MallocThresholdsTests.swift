import Foundation
import Testing
import DurableFiles

@Suite struct MallocThresholdsTests {
    /// Whether glibc serves the block at `pointer` from a mapping of its own, which `free` gives
    /// back: its chunk header's size field, the word just before the block, has the
    /// `IS_MMAPPED` bit (0x2).
    private static func hasOwnMapping(_ pointer: UnsafeMutableRawPointer) -> Bool {
        let size = pointer.load(fromByteOffset: -MemoryLayout<UInt>.size, as: UInt.self)
        return size & 0x2 != 0
    }

    /// After a large block is freed, glibc's default raises its thresholds, and a block of a
    /// megabyte then comes from the heap (and stays resident when freed); with the daemon's
    /// policy it still gets its own mapping, as every later version's buffers do.
    ///
    /// The answer depends on the whole process: a free chunk of a megabyte that earlier
    /// allocations left in the thread's arena serves the block whatever the threshold (two full
    /// runs failed so, once other tests in the process had freed large blocks first). So this
    /// suite runs in a process of its own (`process_wide` in scripts/test).
    @Test func aMegabyteBlockAfterALargerOneFreedHasItsOwnMapping() throws {
        #expect(MallocThresholds.returnFreedMemory.apply(tunables: nil))
        for _ in 0..<2 {
            let large = try #require(malloc(8 << 20))
            memset(large, 1, 8 << 20)
            free(large)
            let block = try #require(malloc(1 << 20))
            defer { free(block) }
            #expect(Self.hasOwnMapping(block))
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
