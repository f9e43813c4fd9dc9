// UTF-8 validation: a scalar pass that finds the first ill-formed sequence,
// and a vectorized yes/no check (AVX2, see UTF8Blocks.h).

#include "CListFormatsScan.h"
#include "UTF8Blocks.h"
#include "UTF8Sequences.h"

#include <string.h>

/// Groups of this many bytes that are all ASCII are skipped; every block of
/// any other group is checked, without asking of each whether it is ASCII:
/// in text that mixes ASCII with other characters (names, cities), the
/// answer comes at random, and the mispredicted branch costs more than the
/// check it saves.
#define GROUP_SIZE 256

int64_t listsync_utf8_first_invalid(const uint8_t *bytes, int64_t count) {
    return utf8_first_invalid(bytes, count);
}

#if LISTSYNC_X86_64
__attribute__((target("avx2"))) static bool utf8_is_valid_avx2(const uint8_t *bytes, int64_t count) {
    utf8_blocks state;
    utf8_blocks_start(&state);
    int64_t index = 0;
    for (; index + GROUP_SIZE <= count; index += GROUP_SIZE) {
        const uint8_t *group = bytes + index;
        if (utf8_blocks_are_ascii(group, GROUP_SIZE)) {
            utf8_blocks_skip_ascii(&state, group + GROUP_SIZE - 64);
        } else {
            for (int offset = 0; offset < GROUP_SIZE; offset += 64) utf8_blocks_check_all(&state, group + offset);
        }
    }
    uint8_t tail[64];
    for (; index < count; index += 64) {
        const uint8_t *block = bytes + index;
        if (count - index < 64) {
            memset(tail, 0, sizeof tail);
            memcpy(tail, block, (size_t)(count - index));
            block = tail;
        }
        utf8_blocks_check_all(&state, block);
    }
    return utf8_blocks_are_valid(&state, true);
}

__attribute__((target("avx512f,avx512bw"))) static bool utf8_is_valid_avx512(const uint8_t *bytes, int64_t count) {
    utf8_blocks_512 state;
    utf8_blocks_512_start(&state);
    int64_t index = 0;
    for (; index + GROUP_SIZE <= count; index += GROUP_SIZE) {
        const __m512i first = _mm512_loadu_si512((const void *)(bytes + index));
        const __m512i second = _mm512_loadu_si512((const void *)(bytes + index + 64));
        const __m512i third = _mm512_loadu_si512((const void *)(bytes + index + 128));
        const __m512i fourth = _mm512_loadu_si512((const void *)(bytes + index + 192));
        const __m512i any = _mm512_or_si512(_mm512_or_si512(first, second), _mm512_or_si512(third, fourth));
        if (_mm512_movepi8_mask(any) == 0) {
            utf8_blocks_512_skip_ascii(&state, fourth);
        } else {
            utf8_blocks_512_check_all(&state, first);
            utf8_blocks_512_check_all(&state, second);
            utf8_blocks_512_check_all(&state, third);
            utf8_blocks_512_check_all(&state, fourth);
        }
    }
    for (; index < count; index += 64) {
        // The last block's missing bytes read as zeros (ASCII).
        const __m512i block = count - index >= 64
            ? _mm512_loadu_si512((const void *)(bytes + index))
            : _mm512_maskz_loadu_epi8(((__mmask64)1 << (count - index)) - 1, bytes + index);
        utf8_blocks_512_check_all(&state, block);
    }
    return utf8_blocks_512_are_valid(&state, true);
}
#endif

int32_t listsync_utf8_is_valid_with(int32_t kernel, const uint8_t *bytes, int64_t count) {
    switch (kernel) {
    case LISTSYNC_UTF8_SCALAR:
        return listsync_utf8_first_invalid(bytes, count) == count;
#if LISTSYNC_X86_64
    case LISTSYNC_UTF8_AVX2:
        return listsync_has_avx2() ? utf8_is_valid_avx2(bytes, count) : -1;
    case LISTSYNC_UTF8_AVX512:
        return listsync_has_avx512() ? utf8_is_valid_avx512(bytes, count) : -1;
#endif
    default:
        return -1;
    }
}

bool listsync_utf8_is_valid(const uint8_t *bytes, int64_t count) {
#if LISTSYNC_X86_64
    if (listsync_has_avx512()) return utf8_is_valid_avx512(bytes, count);
    if (listsync_has_avx2()) return utf8_is_valid_avx2(bytes, count);
#endif
    return listsync_utf8_first_invalid(bytes, count) == count;
}
