// CSV rows split into fields, 64 bytes at a time.
//
// For each block of 64 bytes the scanner finds, as bitmasks, the quotes,
// delimiters and line ends; the quoted regions as a prefix XOR of the quotes
// (the `""` inside a quoted field toggles twice); and so the separators:
// delimiters and line ends outside quotes. The separators' offsets are
// written out in bulk, and the line ends among them make the rows. That is
// the grammar exactly as long as every quote opens a field (after a
// separator, or right after the closing quote of a `""`) or closes one
// (before a separator, an opening quote or the end); a row with any other
// quote — a quote inside an unquoted field, or an error — is read by
// `scan_row_exactly`, which follows the grammar one marked byte at a time.
//
// A block is classified with SSE2, AVX2 or AVX-512 (`LISTSYNC_CSV_…`, the
// best the CPU has): with AVX-512 it is one vector, whose compares give the
// four bitmasks at once and whose UTF-8 check is one step instead of two, and
// the separators' offsets are compressed out of a vector (VBMI2) rather than
// taken one set bit at a time.
// Every block is checked as UTF-8, ASCII or not, without a branch.

#include "CListFormatsScan.h"
#include "UTF8Blocks.h"

#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/// The four byte classes of a block, one bit per byte.
typedef struct {
    uint64_t quotes, delimiters, line_feeds, carriage_returns;
} block_classes;

#if LISTSYNC_X86_64
static inline uint64_t bits_sse2(const uint8_t *bytes, __m128i pattern) {
    uint64_t bits = 0;
    for (int part = 0; part < 4; part++) {
        __m128i chunk = _mm_loadu_si128((const __m128i *)(bytes + 16 * part));
        bits |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, pattern)) << (16 * part);
    }
    return bits;
}

static inline block_classes classify_sse2(const uint8_t *bytes, uint8_t delimiter) {
    return (block_classes){
        bits_sse2(bytes, _mm_set1_epi8('"')), bits_sse2(bytes, _mm_set1_epi8((char)delimiter)),
        bits_sse2(bytes, _mm_set1_epi8('\n')), bits_sse2(bytes, _mm_set1_epi8('\r'))};
}

__attribute__((target("avx2"))) static inline uint64_t bits_avx2(__m256i low, __m256i high, __m256i pattern) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, pattern))
        | (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, pattern)) << 32;
}

__attribute__((target("avx2"))) static inline block_classes classify_avx2(const uint8_t *bytes, uint8_t delimiter) {
    __m256i low = _mm256_loadu_si256((const __m256i *)bytes);
    __m256i high = _mm256_loadu_si256((const __m256i *)(bytes + 32));
    return (block_classes){
        bits_avx2(low, high, _mm256_set1_epi8('"')), bits_avx2(low, high, _mm256_set1_epi8((char)delimiter)),
        bits_avx2(low, high, _mm256_set1_epi8('\n')), bits_avx2(low, high, _mm256_set1_epi8('\r'))};
}

/// The classes of the 64 bytes of `block` with AVX-512: each compare gives
/// its bitmask at once, without the AVX2 path's two halves and movemasks.
__attribute__((target("avx512f,avx512bw"))) static inline block_classes classify_avx512(
    __m512i block, uint8_t delimiter)
{
    return (block_classes){
        _mm512_cmpeq_epi8_mask(block, _mm512_set1_epi8('"')),
        _mm512_cmpeq_epi8_mask(block, _mm512_set1_epi8((char)delimiter)),
        _mm512_cmpeq_epi8_mask(block, _mm512_set1_epi8('\n')),
        _mm512_cmpeq_epi8_mask(block, _mm512_set1_epi8('\r'))};
}

/// The classes of the block of `available` bytes at `bytes` (64 or fewer:
/// the missing ones read as zeros), checked as UTF-8 on the way with AVX-512
/// after the blocks `utf8` has seen. Every block is checked, ASCII or not: in
/// text that mixes ASCII with other characters, whether a block is all ASCII
/// comes at random, and the mispredicted branch costs more than the check.
__attribute__((target("avx512f,avx512bw"))) static inline block_classes classify_checking_utf8_avx512(
    utf8_blocks_512 *utf8, const uint8_t *bytes, int64_t available, uint8_t delimiter)
{
    const __m512i block = available >= 64 ? _mm512_loadu_si512((const void *)bytes)
                                          : _mm512_maskz_loadu_epi8(((__mmask64)1 << available) - 1, bytes);
    utf8_blocks_512_check_all(utf8, block);
    return classify_avx512(block, delimiter);
}

__attribute__((target("pclmul"))) static inline uint64_t prefix_xor_pclmul(uint64_t bits) {
    return (uint64_t)_mm_cvtsi128_si64(
        _mm_clmulepi64_si128(_mm_set_epi64x(0, (int64_t)bits), _mm_set1_epi8((char)0xFF), 0));
}
#else
static inline block_classes classify_scalar(const uint8_t *bytes, uint8_t delimiter) {
    block_classes classes = {0, 0, 0, 0};
    for (int index = 0; index < 64; index++) {
        uint64_t bit = 1ULL << index;
        uint8_t byte = bytes[index];
        if (byte == '"') classes.quotes |= bit;
        if (byte == delimiter) classes.delimiters |= bit;
        if (byte == '\n') classes.line_feeds |= bit;
        if (byte == '\r') classes.carriage_returns |= bit;
    }
    return classes;
}
#endif

/// The classes of the 64 bytes at `bytes`.
__attribute__((always_inline)) static inline block_classes classify(const uint8_t *bytes, uint8_t delimiter, bool avx2) {
#if LISTSYNC_X86_64
    return avx2 ? classify_avx2(bytes, delimiter) : classify_sse2(bytes, delimiter);
#else
    (void)avx2;
    return classify_scalar(bytes, delimiter);
#endif
}

/// Bit *i* is the XOR of bits 0…*i*: set inside quotes (the opening quote
/// included, the closing one not).
__attribute__((always_inline)) static inline uint64_t prefix_xor(uint64_t bits, bool avx2) {
#if LISTSYNC_X86_64
    if (avx2) return prefix_xor_pclmul(bits);
#endif
    (void)avx2;
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    return bits;
}

/// Writes `block + i` for every set bit *i* of `bits` to `out`, in order;
/// may write up to 8 values past them (see LISTSYNC_CSV_SEPARATOR_SLACK).
/// Returns how many were written.
static inline int flatten(uint32_t *out, uint32_t block, uint64_t bits) {
    const int total = __builtin_popcountll(bits);
    // Eight at a time, without a branch per bit: the trailing zeros of 0 are
    // 64, which makes a value past the real ones, overwritten or never read.
    for (int written = 0; written < total; written += 8) {
        for (int lane = 0; lane < 8; lane++) {
            out[written + lane] = block + (uint32_t)__builtin_ctzg(bits, 64);
            bits &= bits - 1;
        }
    }
    return total;
}

#if LISTSYNC_X86_64
/// The offsets 0…63 of a block's bytes.
static const uint8_t block_offsets[64] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
    31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59,
    60, 61, 62, 63};

/// `flatten` with AVX-512: the offsets of the set bits compressed into bytes
/// at once (VBMI2), then widened and written 16 at a time, without a step
/// per bit; may write up to 15 values past them, never more than 64 in all.
__attribute__((target("avx512f,avx512bw,avx512vbmi2"))) static inline int flatten_avx512(
    uint32_t *out, uint32_t block, uint64_t bits)
{
    const int total = __builtin_popcountll(bits);
    __m512i offsets = _mm512_maskz_compress_epi8(bits, _mm512_loadu_si512((const void *)block_offsets));
    const __m512i start = _mm512_set1_epi32((int)block);
    for (int written = 0; written < total; written += 16) {
        const __m512i values = _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(offsets)), start);
        _mm512_storeu_si512((void *)(out + written), values);
        offsets = _mm512_alignr_epi32(offsets, offsets, 4);
    }
    return total;
}
#endif

/// The offset after the line ending (LF, CRLF or a lone CR) at `index`.
static inline int64_t end_of_line_ending(const uint8_t *base, int64_t count, int64_t index) {
    if (base[index] == '\r' && index + 1 < count && base[index + 1] == '\n') return index + 2;
    return index + 1;
}

/// The marked bytes (delimiter, quote, CR, LF) of one block, for
/// `scan_row_exactly`.
typedef struct {
    const uint8_t *base;
    int64_t count;
    uint8_t delimiter;
    /// The offset of the block `marks` describes.
    int64_t block;
    uint64_t marks;
} marked_bytes;

/// The offset of the first delimiter, quote, CR or LF at or after `from`
/// (which never goes back), or `count`.
__attribute__((always_inline)) static inline int64_t next_mark(marked_bytes *state, int64_t from, bool avx2) {
    for (;;) {
        int64_t offset = from - state->block;
        if (offset < 64) {
            uint64_t marks = state->marks & (~0ULL << offset);
            if (marks != 0) return state->block + __builtin_ctzll(marks);
            from = state->block + 64;
        }
        if (from >= state->count) return state->count;
        const uint8_t *bytes = state->base + from;
        uint8_t tail[64];
        if (state->count - from < 64) {
            memset(tail, 0, sizeof tail);
            memcpy(tail, bytes, (size_t)(state->count - from));
            bytes = tail;
        }
        state->block = from;
        block_classes classes = classify(bytes, state->delimiter, avx2);
        state->marks = classes.quotes | classes.delimiters | classes.line_feeds | classes.carriage_returns;
    }
}

/// Where a batch writes.
typedef struct {
    listsync_csv_row *rows;
    int64_t row_capacity;
    int64_t row_count;
    uint32_t *separators;
    /// The capacity less LISTSYNC_CSV_SEPARATOR_SLACK.
    int64_t separator_limit;
    int64_t separator_count;
} output;

/// Reads the row at `start` one marked byte after the other, exactly as the
/// grammar says, and adds it to `out`. Returns LISTSYNC_CSV_END when it
/// did, LISTSYNC_CSV_FULL when its separators do not fit, or the error.
__attribute__((always_inline)) static inline int32_t scan_row_exactly(
    const uint8_t *base, int64_t count, int64_t start, uint8_t delimiter, output *out, int64_t *error_offset,
    bool avx2)
{
    marked_bytes state = {base, count, delimiter, start - 64, 0};
    const int64_t first_separator = out->separator_count;
    bool has_quote = false, has_loose_quote = false;
    int64_t index = start;
    for (;;) {
        if (out->separator_count == out->separator_limit) {
            out->separator_count = first_separator;
            return LISTSYNC_CSV_FULL;
        }
        int64_t end;
        if (index < count && base[index] == '"') {
            const int64_t opening = index;
            has_quote = true;
            index += 1;
            for (;;) {
                end = next_mark(&state, index, avx2);
                if (end >= count) {
                    *error_offset = opening;
                    return LISTSYNC_CSV_UNTERMINATED_QUOTE;
                }
                if (base[end] != '"') {
                    index = end + 1;
                } else if (end + 1 < count && base[end + 1] == '"') {
                    index = end + 2;
                } else {
                    break;
                }
            }
            end += 1;
            if (end < count && base[end] != delimiter && base[end] != '\n' && base[end] != '\r') {
                *error_offset = end;
                return LISTSYNC_CSV_CHARACTER_AFTER_CLOSING_QUOTE;
            }
        } else {
            end = next_mark(&state, index, avx2);
            while (end < count && base[end] == '"') {
                has_quote = true;
                has_loose_quote = true;
                end = next_mark(&state, end + 1, avx2);
            }
        }
        out->separators[out->separator_count++] = (uint32_t)end;
        if (end < count && base[end] == delimiter) {
            index = end + 1;
            continue;
        }
        out->rows[out->row_count++] = (listsync_csv_row){
            start, end, end < count ? end_of_line_ending(base, count, end) : end, (int32_t)first_separator,
            (int32_t)(out->separator_count - first_separator), has_quote, has_loose_quote};
        return LISTSYNC_CSV_END;
    }
}

__attribute__((always_inline)) static inline void scan(
    const uint8_t *base, int64_t count, int64_t start, int64_t limit, uint8_t delimiter,
    listsync_csv_row *rows, int64_t row_capacity, uint32_t *separators, int64_t separator_capacity,
    listsync_csv_batch *batch, int32_t kernel)
{
    // The exact scan and the quote XOR use AVX2's instructions with either wide kernel.
    const bool avx2 = kernel != LISTSYNC_CSV_BASELINE;
    output out = {rows, row_capacity, 0, separators, separator_capacity - LISTSYNC_CSV_SEPARATOR_SLACK, 0};
    int64_t blank_lines = 0;
    int32_t status = LISTSYNC_CSV_END;
    int64_t error_offset = 0;

    int64_t row_start = start, row_first_separator = 0;
    // Whether the row had a quote in the blocks before; which bits of this
    // block belong to the row.
    bool row_had_quote = false;
    uint64_t row_bits = ~0ULL;
    // What the block before left: inside quotes (all ones), ended with a
    // separator (or the row starts here), with a closing quote, with CR.
    uint64_t inside_before = 0, separator_before = 1, closing_before = 0, carriage_return_before = 0;
    // UTF-8 is checked block by block as the blocks are classified (AVX2,
    // AVX-512), or over the batch's bytes at the end (SSE2).
#if LISTSYNC_X86_64
    utf8_blocks utf8;
    utf8_blocks_512 utf8_512;
    if (kernel == LISTSYNC_CSV_AVX2) utf8_blocks_start(&utf8);
    if (kernel == LISTSYNC_CSV_AVX512) utf8_blocks_512_start(&utf8_512);
#endif
    bool is_valid_utf8 = true;
    int64_t block = start;
    while (block < count) {
        if (out.separator_limit - out.separator_count < 64) {
            status = LISTSYNC_CSV_FULL;
            goto finish;
        }
        const int64_t available = count - block;
        block_classes classes;
#if LISTSYNC_X86_64
        if (kernel == LISTSYNC_CSV_AVX512) {
            classes = classify_checking_utf8_avx512(&utf8_512, base + block, available, delimiter);
        } else
#endif
        {
            const uint8_t *bytes = base + block;
            uint8_t tail[64];
            if (available < 64) {
                memset(tail, 0, sizeof tail);
                memcpy(tail, bytes, (size_t)available);
                bytes = tail;
            }
#if LISTSYNC_X86_64
            // Every block is checked, as with AVX-512 (see classify_checking_utf8_avx512).
            if (kernel == LISTSYNC_CSV_AVX2) utf8_blocks_check_all(&utf8, bytes);
#endif
            classes = classify(bytes, delimiter, avx2);
        }
        const uint64_t inside = prefix_xor(classes.quotes, avx2) ^ inside_before;
        const uint64_t line_ends = (classes.line_feeds | classes.carriage_returns) & ~inside;
        const uint64_t all_separators = (classes.delimiters & ~inside) | line_ends;
        // A LF right after a CR belongs to its line ending.
        const uint64_t row_ends =
            line_ends & ~(classes.line_feeds & (classes.carriage_returns << 1 | carriage_return_before));
        const uint64_t opening = classes.quotes & inside;
        const uint64_t closing = classes.quotes & ~inside;
        uint64_t unexpected = opening & ~(all_separators << 1 | separator_before | closing << 1 | closing_before);
        uint64_t followers = all_separators >> 1 | opening >> 1 | 1ULL << 63;
        if (available < 64) followers |= 1ULL << (available - 1);  // the end of the input
        unexpected |= closing & ~followers;
        // A closing quote at the end of the block before.
        if (closing_before && !((all_separators | opening) & 1)) unexpected |= 1;

        uint64_t field_ends = (classes.delimiters & ~inside) | row_ends;
        uint64_t block_row_ends = row_ends;
        if (unexpected != 0) {
            // Only up to the first unexpected quote: its row is read exactly.
            const uint64_t before = (unexpected & -unexpected) - 1;
            field_ends &= before;
            block_row_ends &= before;
        }
        const int64_t block_separators = out.separator_count;
#if LISTSYNC_X86_64
        if (kernel == LISTSYNC_CSV_AVX512) {
            out.separator_count += flatten_avx512(out.separators + block_separators, (uint32_t)block, field_ends);
        } else
#endif
        out.separator_count += flatten(out.separators + block_separators, (uint32_t)block, field_ends);
        while (block_row_ends != 0) {
            const int bit = __builtin_ctzll(block_row_ends);
            block_row_ends &= block_row_ends - 1;
            const uint64_t below = (1ULL << bit) - 1;
            const int64_t position = block + bit;
            const int64_t separator = block_separators + __builtin_popcountll(field_ends & below);
            const int64_t next = end_of_line_ending(base, count, position);
            if (position == row_start) {
                blank_lines += 1;
                if (next >= limit) {
                    row_start = next;
                    out.separator_count = separator + 1;
                    status = LISTSYNC_CSV_FULL;
                    goto finish;
                }
            } else {
                out.rows[out.row_count++] = (listsync_csv_row){
                    row_start, position, next, (int32_t)row_first_separator,
                    (int32_t)(separator + 1 - row_first_separator),
                    row_had_quote || (classes.quotes & row_bits & below) != 0, false};
            }
            row_start = next;
            row_first_separator = separator + 1;
            row_had_quote = false;
            row_bits = ~below << 1;
            if (out.row_count == out.row_capacity || row_start >= limit) {
                out.separator_count = row_first_separator;
                status = LISTSYNC_CSV_FULL;
                goto finish;
            }
        }
        if (unexpected != 0) {
            out.separator_count = row_first_separator;
            status = scan_row_exactly(base, count, row_start, delimiter, &out, &error_offset, avx2);
            if (status != LISTSYNC_CSV_END) goto finish;
#if LISTSYNC_X86_64
            if (avx2) {
                // The row may reach past the blocks checked: check it on its
                // own (it starts on a sequence boundary), and start over after it.
                const listsync_csv_row *row = &out.rows[out.row_count - 1];
                const bool blocks_are_valid = kernel == LISTSYNC_CSV_AVX512 ? utf8_blocks_512_are_valid(&utf8_512, false)
                                                                           : utf8_blocks_are_valid(&utf8, false);
                is_valid_utf8 = is_valid_utf8 && blocks_are_valid
                    && listsync_utf8_is_valid(base + row->start, row->next - row->start);
                if (kernel == LISTSYNC_CSV_AVX512) {
                    utf8_blocks_512_start(&utf8_512);
                } else {
                    utf8_blocks_start(&utf8);
                }
            }
#endif
            row_start = out.rows[out.row_count - 1].next;
            row_first_separator = out.separator_count;
            if (out.row_count == out.row_capacity || row_start >= limit) {
                status = LISTSYNC_CSV_FULL;
                goto finish;
            }
            // Start over at the next row, as at the start of a batch.
            block = row_start;
            row_had_quote = false;
            row_bits = ~0ULL;
            inside_before = 0;
            separator_before = 1;
            closing_before = 0;
            carriage_return_before = 0;
            continue;
        }
        row_had_quote = row_had_quote || (classes.quotes & row_bits) != 0;
        row_bits = ~0ULL;
        inside_before = (uint64_t)((int64_t)inside >> 63);
        separator_before = all_separators >> 63;
        closing_before = closing >> 63;
        carriage_return_before = classes.carriage_returns >> 63;
        block += 64;
    }
    if (row_start < count) {
        // The last row, without a line ending.
        if (inside_before != 0) {
            // A quote left open: the exact scan says where.
            out.separator_count = row_first_separator;
            status = scan_row_exactly(base, count, row_start, delimiter, &out, &error_offset, avx2);
        } else {
            out.separators[out.separator_count++] = (uint32_t)count;
            out.rows[out.row_count++] = (listsync_csv_row){
                row_start, count, count, (int32_t)row_first_separator,
                (int32_t)(out.separator_count - row_first_separator), row_had_quote, false};
        }
        if (status == LISTSYNC_CSV_END) row_start = count;
    }
finish:
    if (status == LISTSYNC_CSV_END || status == LISTSYNC_CSV_FULL) {
#if LISTSYNC_X86_64
        if (kernel == LISTSYNC_CSV_AVX512) {
            is_valid_utf8 = is_valid_utf8 && utf8_blocks_512_are_valid(&utf8_512, status == LISTSYNC_CSV_END);
        } else if (kernel == LISTSYNC_CSV_AVX2) {
            is_valid_utf8 = is_valid_utf8 && utf8_blocks_are_valid(&utf8, status == LISTSYNC_CSV_END);
        } else
#endif
        {
            const int64_t checked_end = status == LISTSYNC_CSV_FULL ? row_start : count;
            is_valid_utf8 = listsync_utf8_is_valid(base + start, checked_end - start);
        }
        if (!is_valid_utf8) status = LISTSYNC_CSV_INVALID_UTF8;
    }
    batch->row_count = out.row_count;
    batch->blank_line_count = blank_lines;
    batch->next = status == LISTSYNC_CSV_FULL ? row_start : count;
    batch->error_offset = error_offset;
    batch->status = status;
}

#if LISTSYNC_X86_64
__attribute__((target("avx2,bmi,popcnt,pclmul"))) static void scan_avx2(
    const uint8_t *base, int64_t count, int64_t start, int64_t limit, uint8_t delimiter,
    listsync_csv_row *rows, int64_t row_capacity, uint32_t *separators, int64_t separator_capacity,
    listsync_csv_batch *batch)
{
    scan(base, count, start, limit, delimiter, rows, row_capacity, separators, separator_capacity, batch,
         LISTSYNC_CSV_AVX2);
}

__attribute__((target("avx512f,avx512bw,avx512vbmi2,avx2,bmi,popcnt,pclmul"))) static void scan_avx512(
    const uint8_t *base, int64_t count, int64_t start, int64_t limit, uint8_t delimiter,
    listsync_csv_row *rows, int64_t row_capacity, uint32_t *separators, int64_t separator_capacity,
    listsync_csv_batch *batch)
{
    scan(base, count, start, limit, delimiter, rows, row_capacity, separators, separator_capacity, batch,
         LISTSYNC_CSV_AVX512);
}
#endif

bool listsync_csv_scan_with(
    int32_t kernel, const uint8_t *base, int64_t count, int64_t start, int64_t limit, uint8_t delimiter,
    listsync_csv_row *rows, int64_t row_capacity, uint32_t *separators, int64_t separator_capacity,
    listsync_csv_batch *batch)
{
    switch (kernel) {
    case LISTSYNC_CSV_BASELINE:
        scan(base, count, start, limit, delimiter, rows, row_capacity, separators, separator_capacity, batch,
             LISTSYNC_CSV_BASELINE);
        return true;
#if LISTSYNC_X86_64
    case LISTSYNC_CSV_AVX2:
        if (!listsync_has_avx2()) return false;
        scan_avx2(base, count, start, limit, delimiter, rows, row_capacity, separators, separator_capacity, batch);
        return true;
    case LISTSYNC_CSV_AVX512:
        if (!listsync_has_avx2() || !listsync_has_avx512_vbmi2()) return false;
        scan_avx512(base, count, start, limit, delimiter, rows, row_capacity, separators, separator_capacity, batch);
        return true;
#endif
    default:
        return false;
    }
}

void listsync_csv_scan(
    const uint8_t *base, int64_t count, int64_t start, int64_t limit, uint8_t delimiter,
    listsync_csv_row *rows, int64_t row_capacity, uint32_t *separators, int64_t separator_capacity,
    listsync_csv_batch *batch)
{
    // The best kernel the CPU has.
    const int32_t kernel = listsync_has_avx2() && listsync_has_avx512_vbmi2() ? LISTSYNC_CSV_AVX512
        : listsync_has_avx2()                                               ? LISTSYNC_CSV_AVX2
                                                                            : LISTSYNC_CSV_BASELINE;
    listsync_csv_scan_with(
        kernel, base, count, start, limit, delimiter, rows, row_capacity, separators, separator_capacity, batch);
}

// MARK: Hashes

/// Whether `base[start..<end]` holds the delimiter, a quote, CR or LF: the
/// rule of ListFormats' `CSVFieldEncoding` for a value that needs quotes.
static inline bool needs_quotes(const uint8_t *base, int64_t start, int64_t end, uint8_t delimiter) {
    int64_t index = start;
#if LISTSYNC_X86_64
    const __m128i delimiters = _mm_set1_epi8((char)delimiter);
    for (; index + 16 <= end; index += 16) {
        __m128i chunk = _mm_loadu_si128((const __m128i *)(base + index));
        __m128i hits = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(chunk, delimiters), _mm_cmpeq_epi8(chunk, _mm_set1_epi8('"'))),
            _mm_or_si128(_mm_cmpeq_epi8(chunk, _mm_set1_epi8('\n')), _mm_cmpeq_epi8(chunk, _mm_set1_epi8('\r'))));
        if (_mm_movemask_epi8(hits) != 0) return true;
    }
#endif
    for (; index < end; index++) {
        uint8_t byte = base[index];
        if (byte == delimiter || byte == '"' || byte == '\n' || byte == '\r') return true;
    }
    return false;
}

static inline listsync_hash128 content_hash(listsync_hash128 row, uint64_t header_seed) {
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, (XXH128_hash_t){row.low, row.high});
    XXH128_hash_t hash = XXH3_128bits_withSeed(canonical.digest, sizeof canonical.digest, header_seed);
    return (listsync_hash128){hash.low64, hash.high64};
}

listsync_hash128 listsync_csv_content_hash(listsync_hash128 row, uint64_t header_seed) {
    return content_hash(row, header_seed);
}

void listsync_csv_hash_rows(
    const uint8_t *base, uint8_t delimiter, const listsync_csv_row *rows, int64_t row_count,
    const uint32_t *separators, int64_t field_count, int64_t key_column, bool hashes_content, uint64_t header_seed,
    int32_t identity, listsync_csv_row_hashes *hashes, listsync_record *records)
{
    for (int64_t index = 0; index < row_count; index++) {
        const listsync_csv_row *row = &rows[index];
        listsync_csv_row_hashes *out = &hashes[index];
        out->has_content = false;
        out->has_key = false;
        out->is_ready = false;
        const uint32_t *ends = separators + row->first_separator;
        if (hashes_content && row->field_count == field_count && !row->has_loose_quote) {
            bool is_canonical = true;
            for (int32_t field = 0; row->has_quote && is_canonical && field < row->field_count; field++) {
                const int64_t start = field == 0 ? row->start : (int64_t)ends[field - 1] + 1;
                if (start < ends[field] && base[start] == '"') {
                    is_canonical = needs_quotes(base, start + 1, (int64_t)ends[field] - 1, delimiter);
                }
            }
            if (is_canonical) {
                XXH128_hash_t hash = XXH3_128bits(base + row->start, (size_t)(row->end - row->start));
                listsync_hash128 content = content_hash((listsync_hash128){hash.low64, hash.high64}, header_seed);
                out->row_low = hash.low64;
                out->row_high = hash.high64;
                out->content_low = content.low;
                out->content_high = content.high;
                out->has_content = true;
            }
        }
        if (key_column >= 0 && key_column < row->field_count) {
            int64_t start = key_column == 0 ? row->start : (int64_t)ends[key_column - 1] + 1;
            int64_t end = ends[key_column];
            bool is_plain = true;
            if (row->has_quote && start < end && base[start] == '"') {
                start += 1;
                end -= 1;
                is_plain = memchr(base + start, '"', (size_t)(end - start)) == NULL;
            }
            if (is_plain) {
                XXH128_hash_t hash = XXH3_128bits(base + start, (size_t)(end - start));
                out->key_low = hash.low64;
                out->key_high = hash.high64;
                out->has_key = true;
            }
        }
        out->is_ready = out->has_content
            && (identity == LISTSYNC_IDENTITY_CONTENT || (identity == LISTSYNC_IDENTITY_KEY && out->has_key));
        if (out->is_ready) {
            const bool is_keyed = identity == LISTSYNC_IDENTITY_KEY;
            records[index] = (listsync_record){
                is_keyed ? out->key_low : out->row_low, is_keyed ? out->key_high : out->row_high,
                out->content_low, out->content_high, (uint32_t)row->start, (uint32_t)(row->end - row->start)};
        }
    }
}

// MARK: Splitting

/// The number of quotes in `base[start..<end]`.
__attribute__((always_inline)) static inline int64_t count_quotes_in(
    const uint8_t *base, int64_t start, int64_t end, bool avx2)
{
    int64_t quotes = 0, index = start;
#if LISTSYNC_X86_64
    if (avx2) {
        for (; index + 64 <= end; index += 64) {
            quotes += __builtin_popcountll(classify_avx2(base + index, '"').quotes);
        }
    }
    for (; index + 16 <= end; index += 16) {
        __m128i chunk = _mm_loadu_si128((const __m128i *)(base + index));
        quotes += __builtin_popcount((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, _mm_set1_epi8('"'))));
    }
#else
    (void)avx2;
#endif
    for (; index < end; index++) quotes += base[index] == '"';
    return quotes;
}

#if LISTSYNC_X86_64
__attribute__((target("avx2,popcnt"))) static int64_t count_quotes_avx2(const uint8_t *base, int64_t start, int64_t end) {
    return count_quotes_in(base, start, end, true);
}
#endif

static int64_t count_quotes(const uint8_t *base, int64_t start, int64_t end) {
#if LISTSYNC_X86_64
    if (listsync_has_avx2()) return count_quotes_avx2(base, start, end);
#endif
    return count_quotes_in(base, start, end, false);
}

/// How far past the middle `listsync_csv_split_point` looks for a quote
/// that tells which side of the quotes it is on.
#define SPLIT_WINDOW (1 << 20)

/// Whether `byte` may stand next to a quote that opens or closes a field: a
/// delimiter, a line ending, or another quote.
static inline bool may_border_quote(uint8_t byte, uint8_t delimiter) {
    return byte == delimiter || byte == '\n' || byte == '\r' || byte == '"';
}

int64_t listsync_csv_split_point(const uint8_t *base, int64_t count, int64_t start, uint8_t delimiter) {
    const int64_t middle = start + (count - start) / 2;
    const int64_t window_end = count - middle > SPLIT_WINDOW ? middle + SPLIT_WINDOW : count;
    // Counting quotes as XOR does (`""` toggles twice): after a quote that
    // field text follows — an opening quote, or the second of a `""` — the
    // count is odd; after one that field text precedes — a closing quote, or
    // the first of a `""` — it is even.
    int64_t index = middle;
    int parity = -1;
    for (; index < window_end && parity < 0; index++) {
        if (base[index] != '"') continue;
        if (index + 1 < count && !may_border_quote(base[index + 1], delimiter)) {
            parity = 1;
        } else if (index > start && !may_border_quote(base[index - 1], delimiter)) {
            parity = 0;
        }
    }
    bool is_inside = parity == 1;
    if (parity < 0) {
        // No telling quote nearby: count them from the start.
        index = middle;
        is_inside = count_quotes(base, start, middle) % 2 == 1;
    }
    for (; index + 1 < count; index++) {
        uint8_t byte = base[index];
        if (byte == '"') {
            is_inside = !is_inside;
        } else if (byte == '\n' && !is_inside && base[index + 1] != '\n' && base[index + 1] != '\r') {
            return index + 1;
        }
    }
    return -1;
}
