#ifndef LISTSYNC_UTF8_BLOCKS_H
#define LISTSYNC_UTF8_BLOCKS_H

// UTF-8 validation 64 bytes at a time with AVX2 or AVX-512, after Keiser
// and Lemire, "Validating UTF-8 in less than one instruction per byte"
// (2021), as in simdjson: a pair of bytes is ill-formed when three table
// lookups (by the nibbles of the first byte and the high nibble of the
// second) share an error bit. Shared by the standalone validator and the CSV scanner, which
// checks each block as it classifies it.

#include "CPUFeatures.h"

#include <stdbool.h>
#include <stdint.h>

#if LISTSYNC_X86_64
// The error classes of a pair of bytes (the byte before and the byte), as
// bits; a pair is ill-formed when the three lookups below share a bit.
#define TOO_SHORT (1 << 0)      // 11______ 0_______ or 11______ 11______
#define TOO_LONG (1 << 1)       // 0_______ 10______
#define OVERLONG_3 (1 << 2)     // 11100000 100_____
#define TOO_LARGE (1 << 3)      // 11110100 1001____ and above
#define SURROGATE (1 << 4)      // 11101101 101_____
#define OVERLONG_2 (1 << 5)     // 1100000_ 10______
#define TOO_LARGE_1000 (1 << 6) // 11110101 1000____ and above
#define OVERLONG_4 (1 << 6)     // 11110000 1000____
#define TWO_CONTS (1 << 7)      // 10______ 10______
#define CARRY (TOO_SHORT | TOO_LONG | TWO_CONTS)

/// The error classes by the high nibble of the first byte of a pair…
static const uint8_t byte_1_high[16] = {
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
    TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
};

/// …by its low nibble…
static const uint8_t byte_1_low[16] = {
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY,
    CARRY | TOO_LARGE, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
};

/// …and by the high nibble of the second byte.
static const uint8_t byte_2_high[16] = {
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
};

__attribute__((target("avx2"))) static inline __m256i lookup16(__m256i index, __m256i table) {
    return _mm256_shuffle_epi8(table, index);
}

__attribute__((target("avx2"))) static inline __m256i high_nibbles(__m256i bytes) {
    return _mm256_and_si256(_mm256_srli_epi16(bytes, 4), _mm256_set1_epi8(0x0F));
}

/// The bytes of `input` shifted right by `N` bytes, the gap filled from the
/// end of `previous`.
#define PREVIOUS(input, previous, N) \
    _mm256_alignr_epi8((input), _mm256_permute2x128_si256((previous), (input), 0x21), 16 - (N))

/// The error bits of the 32 bytes of `input`, `previous` being the 32 bytes
/// before them.
__attribute__((target("avx2"))) static inline __m256i check_block(__m256i input, __m256i previous) {
    const __m256i byte_1_high_table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)byte_1_high));
    const __m256i byte_1_low_table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)byte_1_low));
    const __m256i byte_2_high_table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)byte_2_high));

    __m256i previous_1 = PREVIOUS(input, previous, 1);
    __m256i special_cases = _mm256_and_si256(
        _mm256_and_si256(
            lookup16(high_nibbles(previous_1), byte_1_high_table),
            lookup16(_mm256_and_si256(previous_1, _mm256_set1_epi8(0x0F)), byte_1_low_table)),
        lookup16(high_nibbles(input), byte_2_high_table));
    // The third and fourth bytes of a sequence must be continuations.
    __m256i is_third = _mm256_subs_epu8(PREVIOUS(input, previous, 2), _mm256_set1_epi8((char)(0xE0 - 0x80)));
    __m256i is_fourth = _mm256_subs_epu8(PREVIOUS(input, previous, 3), _mm256_set1_epi8((char)(0xF0 - 0x80)));
    __m256i must_be_continuation = _mm256_and_si256(_mm256_or_si256(is_third, is_fourth), _mm256_set1_epi8((char)0x80));
    return _mm256_xor_si256(must_be_continuation, special_cases);
}

/// Non-zero where the last bytes of `input` start a sequence that needs more bytes.
__attribute__((target("avx2"))) static inline __m256i incomplete_at_end(__m256i input) {
    const __m256i limits = _mm256_setr_epi8(
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        (char)(0xF0 - 1), (char)(0xE0 - 1), (char)(0xC0 - 1));
    return _mm256_subs_epu8(input, limits);
}

/// What the check of the blocks so far left: the errors found, the block
/// before (for sequences that cross into the next one), and whether it ends
/// in the middle of a sequence.
typedef struct {
    __m256i error;
    __m256i previous;
    __m256i previous_incomplete;
} utf8_blocks;

__attribute__((target("avx2"))) static inline void utf8_blocks_start(utf8_blocks *state) {
    state->error = _mm256_setzero_si256();
    state->previous = _mm256_setzero_si256();
    state->previous_incomplete = _mm256_setzero_si256();
}

/// Takes note of the 64 bytes at `bytes`, all ASCII, which follow the
/// blocks checked so far: only a sequence left open before them is wrong.
__attribute__((target("avx2"))) static inline void utf8_blocks_skip_ascii(utf8_blocks *state, const uint8_t *bytes) {
    state->error = _mm256_or_si256(state->error, state->previous_incomplete);
    state->previous_incomplete = _mm256_setzero_si256();
    state->previous = _mm256_loadu_si256((const __m256i *)(bytes + 32));
}

/// Checks the 64 bytes at `bytes`, which follow the blocks checked so far,
/// without asking whether they are ASCII.
__attribute__((target("avx2"))) static inline void utf8_blocks_check_all(utf8_blocks *state, const uint8_t *bytes) {
    __m256i first = _mm256_loadu_si256((const __m256i *)bytes);
    __m256i second = _mm256_loadu_si256((const __m256i *)(bytes + 32));
    state->error = _mm256_or_si256(state->error, check_block(first, state->previous));
    state->error = _mm256_or_si256(state->error, check_block(second, first));
    state->previous_incomplete = incomplete_at_end(second);
    state->previous = second;
}

/// Whether the `count` bytes at `bytes` (a multiple of 64) are all ASCII.
__attribute__((target("avx2"))) static inline bool utf8_blocks_are_ascii(const uint8_t *bytes, int count) {
    __m256i any = _mm256_setzero_si256();
    for (int offset = 0; offset < count; offset += 32) {
        any = _mm256_or_si256(any, _mm256_loadu_si256((const __m256i *)(bytes + offset)));
    }
    return _mm256_movemask_epi8(any) == 0;
}

/// Whether the blocks checked so far are well-formed, if the input ends
/// after them (`at_end`) or goes on with a sequence boundary.
__attribute__((target("avx2"))) static inline bool utf8_blocks_are_valid(const utf8_blocks *state, bool at_end) {
    __m256i error = at_end ? _mm256_or_si256(state->error, state->previous_incomplete) : state->error;
    return _mm256_testz_si256(error, error);
}

// MARK: AVX-512

/// The bytes of `input` shifted right by `N` bytes, the gap filled from the
/// end of `previous`: the 16-byte lanes moved up by one, then each lane
/// aligned with the one before it.
#define PREVIOUS_512(input, previous, N) \
    _mm512_alignr_epi8( \
        (input), _mm512_permutex2var_epi64((previous), _mm512_set_epi64(13, 12, 11, 10, 9, 8, 7, 6), (input)), \
        16 - (N))

/// `check_block` for the 64 bytes of `input` (the table lookups shuffle
/// within each 16-byte lane, as with AVX2).
__attribute__((target("avx512f,avx512bw"))) static inline __m512i check_block_512(__m512i input, __m512i previous) {
    const __m512i byte_1_high_table = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)byte_1_high));
    const __m512i byte_1_low_table = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)byte_1_low));
    const __m512i byte_2_high_table = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)byte_2_high));
    const __m512i low_nibbles = _mm512_set1_epi8(0x0F);

    const __m512i previous_1 = PREVIOUS_512(input, previous, 1);
    const __m512i special_cases = _mm512_and_si512(
        _mm512_and_si512(
            _mm512_shuffle_epi8(byte_1_high_table, _mm512_and_si512(_mm512_srli_epi16(previous_1, 4), low_nibbles)),
            _mm512_shuffle_epi8(byte_1_low_table, _mm512_and_si512(previous_1, low_nibbles))),
        _mm512_shuffle_epi8(byte_2_high_table, _mm512_and_si512(_mm512_srli_epi16(input, 4), low_nibbles)));
    const __m512i is_third = _mm512_subs_epu8(PREVIOUS_512(input, previous, 2), _mm512_set1_epi8((char)(0xE0 - 0x80)));
    const __m512i is_fourth = _mm512_subs_epu8(PREVIOUS_512(input, previous, 3), _mm512_set1_epi8((char)(0xF0 - 0x80)));
    const __m512i must_be_continuation =
        _mm512_and_si512(_mm512_or_si512(is_third, is_fourth), _mm512_set1_epi8((char)0x80));
    return _mm512_xor_si512(must_be_continuation, special_cases);
}

/// `incomplete_at_end` for the 64 bytes of `input`.
__attribute__((target("avx512f,avx512bw"))) static inline __m512i incomplete_at_end_512(__m512i input) {
    const __m512i limits = _mm512_set_epi8(
        (char)(0xC0 - 1), (char)(0xE0 - 1), (char)(0xF0 - 1), -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    return _mm512_subs_epu8(input, limits);
}

/// `utf8_blocks` with AVX-512: one vector per block.
typedef struct {
    __m512i error;
    __m512i previous;
    __m512i previous_incomplete;
} utf8_blocks_512;

__attribute__((target("avx512f,avx512bw"))) static inline void utf8_blocks_512_start(utf8_blocks_512 *state) {
    state->error = _mm512_setzero_si512();
    state->previous = _mm512_setzero_si512();
    state->previous_incomplete = _mm512_setzero_si512();
}

/// `utf8_blocks_skip_ascii` with AVX-512.
__attribute__((target("avx512f,avx512bw"))) static inline void utf8_blocks_512_skip_ascii(
    utf8_blocks_512 *state, __m512i block)
{
    state->error = _mm512_or_si512(state->error, state->previous_incomplete);
    state->previous_incomplete = _mm512_setzero_si512();
    state->previous = block;
}

/// `utf8_blocks_check_all` with AVX-512.
__attribute__((target("avx512f,avx512bw"))) static inline void utf8_blocks_512_check_all(
    utf8_blocks_512 *state, __m512i block)
{
    state->error = _mm512_or_si512(state->error, check_block_512(block, state->previous));
    state->previous_incomplete = incomplete_at_end_512(block);
    state->previous = block;
}

/// `utf8_blocks_are_valid` with AVX-512.
__attribute__((target("avx512f,avx512bw"))) static inline bool utf8_blocks_512_are_valid(
    const utf8_blocks_512 *state, bool at_end)
{
    const __m512i error = at_end ? _mm512_or_si512(state->error, state->previous_incomplete) : state->error;
    return _mm512_test_epi8_mask(error, error) == 0;
}

#endif

#endif
