import CListFormatsScan
import CXXHash
import Foundation
@testable import ListFormats
import Testing

/// XXH3 must be the reference XXH3 (vectors from the `xxhash` Python package,
/// which wraps the reference C library): persisted hashes depend on it.
@Suite struct StableHashTests {
    private func hashes(_ text: String) -> (UInt64, ContentHash) {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { (StableHash.hash64($0), StableHash.hash128($0)) }
    }

    @Test(arguments: [
        ("", 0x2d06_8005_38d3_94c2 as UInt64, "99aa06d3014798d86001c324468d497f"),
        ("a", 0xe6c6_32b6_1e96_4e1f, "a96faf705af16834e6c632b61e964e1f"),
        ("1,a", 0xb187_0614_7c6a_5ea5, "f04c807b5f7e9d05b18706147c6a5ea5"),
        (
            "hello world, this is a longer input that crosses the 128 byte threshold of xxh3 so that the midsize path is used too......................................",
            0x14ef_2d74_b3a6_d3ce, "de948a15ea31a99dc63cfba87c40febf"
        ),
    ])
    func referenceVectors(_ text: String, _ expected64: UInt64, _ expected128: String) {
        let (hash64, hash128) = hashes(text)
        #expect(hash64 == expected64)
        #expect(hash128.description == expected128)
    }

    /// Long inputs (a file's chunks) are hashed by the dispatched C function, with AVX2 where the
    /// CPU has it: every kernel gives XXH3-128 as the inlined reference code computes it (the
    /// hashes are persisted and compared across versions), at every length around the 240-byte
    /// switch, the 64-byte stripes, the 1,024-byte blocks, and at any offset of the input.
    @Test func everyKernelOfLongInputsAgreesWithTheInlinedReference() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let lengths = Array(0...1_100) + [2_047, 2_048, 2_049, 65_536, 65_537, 70_000, 131_072, 299_000]
        let kernels = [Int32(LISTSYNC_XXH3_BASELINE), Int32(LISTSYNC_XXH3_AVX2)]
        var avx2Checked = false
        bytes.withUnsafeBytes { buffer in
            for length in lengths {
                let offset = Int.random(in: 0...(buffer.count - length), using: &generator)
                let input = UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + length)])
                let base = input.baseAddress ?? buffer.baseAddress!
                let reference = listsync_xxh3_128(base, length)
                let expected = ContentHash(low: reference.low64, high: reference.high64)
                #expect(StableHash.hash128(input) == expected, "\(length) bytes")
                for kernel in kernels {
                    var hash = listsync_hash128()
                    guard listsync_xxh3_128_dispatched_with(kernel, base, Int64(length), &hash) else { continue }
                    if kernel == Int32(LISTSYNC_XXH3_AVX2) { avx2Checked = true }
                    #expect(ContentHash(low: hash.low, high: hash.high) == expected, "kernel \(kernel), \(length) bytes")
                }
            }
        }
        // Where the CPU has AVX2 (this project's machines), its kernel was compared, not skipped.
        let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        #expect(avx2Checked == cpuInfo.contains(" avx2"))
    }

    /// A keyless record's identity is XXH3-128 of its canonical row; its content is that hash
    /// sealed with the header (`listsync_csv_content_hash`, seeded with XXH3-64 of the schema
    /// block), by the vectorized path and the quoted-row path alike.
    @Test func csvContentHashIsTheCanonicalRowSealedWithTheHeader() throws {
        // An unquoted row is its own canonical form; quoting does not change it.
        let plain = try read("id,name\n1,a\n", csv).records[0]
        let quoted = try read("id,name\n\"1\",\"a\"\n", csv).records[0]
        #expect(plain.differenceIdentifier.hash.description == "f04c807b5f7e9d05b18706147c6a5ea5")
        let seed = ListSchema(columns: ["id", "name"]).canonicalBytes.withUnsafeBytes { StableHash.hash64($0) }
        let sealed = listsync_csv_content_hash(listsync_hash128(low: 0xb187_0614_7c6a_5ea5, high: 0xf04c_807b_5f7e_9d05), seed)
        #expect(plain.contentHash == ContentHash(low: sealed.low, high: sealed.high))
        #expect(plain.contentHash != plain.differenceIdentifier.hash)
        #expect(quoted.contentHash == plain.contentHash)
        #expect(quoted.differenceIdentifier == plain.differenceIdentifier)
    }

    /// Renaming a column changes the content of every record, keyed or not, by either path,
    /// and no identity: a rename is an update of every record (issue 10 item 1).
    @Test func aRenamedColumnChangesEveryContentButNoIdentity() throws {
        for key in [[], ["id"], ["id", "sector"]] {
            let old = try read("id,Security,sector\n1,Acme,x\n2,\"B, Inc\",y\n", csv, key: key)
            let new = try read("id,Company,sector\n1,Acme,x\n2,\"B, Inc\",y\n", csv, key: key)
            let back = try read("id,Security,sector\n1,Acme,x\n2,\"B, Inc\",y\n", csv, key: key)
            #expect(old.records.map(\.differenceIdentifier) == new.records.map(\.differenceIdentifier))
            for (before, after) in zip(old.records, new.records) {
                #expect(before.contentHash != after.contentHash)
            }
            #expect(back.records.map(\.contentHash) == old.records.map(\.contentHash))
        }
        // An ignored column's name is not published, so renaming it changes nothing.
        let old = try read("id,name,at\n1,a,x\n", csv, key: ["id"], ignore: ["at"])
        let new = try read("id,name,stamp\n1,a,x\n", csv, key: ["id"], ignore: ["stamp"])
        #expect(old.records[0].contentHash == new.records[0].contentHash)
    }

    @Test func jsonContentHashIsXXH3OfTheCanonicalText() throws {
        // Canonical text: members sorted by name, no whitespace, minimal escapes.
        let record = try read(#"[ { "b" : 1, "\u0061" : "\u0078" } ]"#, .json).records[0]
        #expect(record.contentHash.description == "e02de5863dafb8f60dfe6f7343dc2fe8")
    }
}
