// UTF-8 validation: a scalar pass that finds the first ill-formed sequence,
// and a vectorized yes/no check (AVX2, see UTF8Blocks.h).

#include "CListFormatsScan.h"
#include "UTF8Blocks.h"
#include "UTF8Sequences.h"

#include <string.h>

int64_t listsync_utf8_first_invalid(const uint8_t *bytes, int64_t count) {
    return utf8_first_invalid(bytes, count);
}

#if LISTSYNC_X86_64
__attribute__((target("avx2"))) static bool utf8_is_valid_avx2(const uint8_t *bytes, int64_t count) {
    utf8_blocks state;
    utf8_blocks_start(&state);
    uint8_t tail[64];
    for (int64_t index = 0; index < count; index += 64) {
        const uint8_t *block = bytes + index;
        if (count - index < 64) {
            memset(tail, 0, sizeof tail);
            memcpy(tail, block, (size_t)(count - index));
            block = tail;
        }
        utf8_blocks_check(&state, block);
    }
    return utf8_blocks_are_valid(&state, true);
}
#endif

bool listsync_utf8_is_valid(const uint8_t *bytes, int64_t count) {
#if LISTSYNC_X86_64
    if (listsync_has_avx2()) return utf8_is_valid_avx2(bytes, count);
#endif
    return listsync_utf8_first_invalid(bytes, count) == count;
}
