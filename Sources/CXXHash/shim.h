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

/// XXH3, 64-bit, over bytes given in pieces: a state (`NULL` when memory runs out) that
/// ``listsync_xxh3_64_update`` feeds and ``listsync_xxh3_64_digest`` reads — the same value as
/// ``listsync_xxh3_64`` of the pieces laid end to end. Freed with ``listsync_xxh3_64_free``.
static inline void *listsync_xxh3_64_create(void) {
    XXH3_state_t *state = XXH3_createState();
    if (state != NULL) XXH3_64bits_reset(state);
    return state;
}

static inline void listsync_xxh3_64_update(void *state, const void *bytes, size_t count) {
    XXH3_64bits_update((XXH3_state_t *)state, bytes, count);
}

static inline uint64_t listsync_xxh3_64_digest(const void *state) {
    return XXH3_64bits_digest((const XXH3_state_t *)state);
}

static inline void listsync_xxh3_64_free(void *state) {
    XXH3_freeState((XXH3_state_t *)state);
}

#endif
