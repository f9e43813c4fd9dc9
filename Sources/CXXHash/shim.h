#ifndef LISTSYNC_CXXHASH_SHIM_H
#define LISTSYNC_CXXHASH_SHIM_H

// XXH3 compiled into the caller: with XXH_INLINE_ALL every function is
// `static inline`, so nothing is linked and Swift can inline the hash into its
// loops. The wrappers below give the functions names Swift can import (the
// header renames them through macros, which Swift does not import).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stddef.h>
#include <stdint.h>

/// XXH3, 64-bit, default secret and seed 0.
static inline uint64_t listsync_xxh3_64(const void *bytes, size_t count) {
    return XXH3_64bits(bytes, count);
}

/// XXH3, 128-bit, default secret and seed 0.
static inline XXH128_hash_t listsync_xxh3_128(const void *bytes, size_t count) {
    return XXH3_128bits(bytes, count);
}

#endif
