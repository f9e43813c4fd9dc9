// XXH3-128 of long inputs with AVX2 where the CPU has it, chosen at run time.
//
// The CXXHash shim compiles XXH3 into Swift for the x86-64 baseline (SSE2):
// about 10 GB/s on this project's machines, against about 30 GB/s with AVX2
// (issue 19: hashing an 88 MB file's 64 KiB chunks cost 8–9 ms per version,
// a third of the daemon's CPU per one-row edit). XXH3's result does not depend
// on the instructions that compute it (its accumulators are defined on 64-bit
// lanes), so both give the same hash, which is persisted and compared.

#include "CListFormatsScan.h"
#include "CPUFeatures.h"

#define XXH_INLINE_ALL
#if LISTSYNC_X86_64
#define XXH_DISPATCH_AVX2 1
#define XXH_TARGET_AVX2 __attribute__((target("avx2")))
// The accumulators are loaded and stored aligned by the AVX2 code: 32 bytes, not the 16 that
// this file's baseline (SSE2) would align them to.
#define XXH_ACC_ALIGN 32
#endif
#include <xxhash.h>

#if LISTSYNC_X86_64
/// XXH3-128's long-input loop (more than 240 bytes; default secret, seed 0) with AVX2: the
/// shape of the function `XXH3_128bits_internal` calls for long inputs.
__attribute__((noinline)) XXH_TARGET_AVX2 static XXH128_hash_t hash_long_avx2(
    const void *input, size_t length, XXH64_hash_t seed, const void *secret, size_t secret_length) {
    (void)seed;
    (void)secret;
    (void)secret_length;
    return XXH3_hashLong_128b_internal(
        input, length, XXH3_kSecret, sizeof(XXH3_kSecret), XXH3_accumulate_512_avx2, XXH3_scrambleAcc_avx2);
}
#endif

bool listsync_xxh3_128_dispatched_with(int32_t kernel, const void *bytes, int64_t count, listsync_hash128 *hash) {
    XXH128_hash_t value;
    switch (kernel) {
    case LISTSYNC_XXH3_BASELINE:
        value = XXH3_128bits(bytes, (size_t)count);
        break;
#if LISTSYNC_X86_64
    case LISTSYNC_XXH3_AVX2:
        if (!listsync_has_avx2()) return false;
        value = XXH3_128bits_internal(bytes, (size_t)count, 0, XXH3_kSecret, sizeof(XXH3_kSecret), hash_long_avx2);
        break;
#endif
    default:
        return false;
    }
    *hash = (listsync_hash128){value.low64, value.high64};
    return true;
}

listsync_hash128 listsync_xxh3_128_dispatched(const void *bytes, int64_t count) {
    listsync_hash128 hash;
#if LISTSYNC_X86_64
    if (count > XXH3_MIDSIZE_MAX && listsync_xxh3_128_dispatched_with(LISTSYNC_XXH3_AVX2, bytes, count, &hash)) return hash;
#endif
    listsync_xxh3_128_dispatched_with(LISTSYNC_XXH3_BASELINE, bytes, count, &hash);
    return hash;
}
