// The JSON fast path: flat records — objects whose members are strings,
// numbers or literals, and such scalars — read, checked and hashed in one
// go (but for UTF-8, which the reader checks in bulk over what was read).
// It takes only what it fully understands and stops before anything
// else (nested values, escaped member names, anything that is not JSON),
// which the reader's complete scanner then reads, with its exact errors.
//
// The content hash is XXH3-128 of the record's canonical JSON text: no
// whitespace, members sorted by the bytes of their names, strings with one
// spelling per character (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`,
// `\u00xx` for other control characters, everything else as is), numbers
// and literals as written — the same text ListFormats' `JSONString` and
// `JSONValueEncoder` write. Records of a list nearly always share their
// member names, so the names found for one record are checked, not
// scanned, for the next, and its sorted order is reused.

#include "CListFormatsScan.h"
#include "CPUFeatures.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/// The most members an object record may have on the fast path.
#define MAXIMUM_MEMBERS 256

/// A member of the object record being read.
typedef struct {
    uint32_t name_start, name_end;
    uint32_t value_start, value_end;
    uint8_t kind;
} member;

struct listsync_json_scanner {
    listsync_json_field *fields;
    int64_t field_count;
    int64_t capture_count;
    /// The canonical text of the record being read.
    uint8_t *text;
    size_t text_capacity;
    member members[MAXIMUM_MEMBERS];
    /// The member names of the last object record (-1: none yet), in file
    /// order; their canonical order (positions in file order); the field
    /// each one is (-1: none).
    int32_t shape_count;
    listsync_json_value shape[MAXIMUM_MEMBERS];
    int32_t order[MAXIMUM_MEMBERS];
    int32_t shape_fields[MAXIMUM_MEMBERS];
    /// For each member in canonical order, `,"name":`, ready to append:
    /// `pieces[piece_ends[i - 1]..<piece_ends[i]]`.
    uint8_t *pieces;
    size_t pieces_capacity;
    uint32_t piece_ends[MAXIMUM_MEMBERS];
    /// The layout of the last object record read in full (-1: none): the
    /// bytes before its first value, between its values, and after its last
    /// one (braces, whitespace, names, colons, commas), as spans of the
    /// input. A record laid out the same way is checked against these, not
    /// scanned; it has the same names.
    int32_t layout_count;
    listsync_json_value layout[MAXIMUM_MEMBERS + 1];
};

listsync_json_scanner *listsync_json_scanner_create(
    const listsync_json_field *fields, int64_t field_count, int64_t capture_count)
{
    listsync_json_scanner *scanner = calloc(1, sizeof *scanner);
    if (scanner == NULL) return NULL;
    scanner->fields = calloc((size_t)(field_count > 0 ? field_count : 1), sizeof *fields);
    scanner->text_capacity = 4096;
    scanner->text = malloc(scanner->text_capacity);
    if (scanner->fields == NULL || scanner->text == NULL) {
        listsync_json_scanner_destroy(scanner);
        return NULL;
    }
    for (int64_t index = 0; index < field_count; index++) {
        uint8_t *name = malloc((size_t)(fields[index].length > 0 ? fields[index].length : 1));
        if (name == NULL) {
            scanner->field_count = index;
            listsync_json_scanner_destroy(scanner);
            return NULL;
        }
        memcpy(name, fields[index].name, (size_t)fields[index].length);
        scanner->fields[index] = fields[index];
        scanner->fields[index].name = name;
    }
    scanner->field_count = field_count;
    scanner->capture_count = capture_count;
    scanner->shape_count = -1;
    scanner->layout_count = -1;
    return scanner;
}

void listsync_json_scanner_destroy(listsync_json_scanner *scanner) {
    if (scanner == NULL) return;
    for (int64_t index = 0; index < scanner->field_count; index++) free((void *)scanner->fields[index].name);
    free(scanner->fields);
    free(scanner->text);
    free(scanner->pieces);
    free(scanner);
}

int64_t listsync_json_scanner_shape(const listsync_json_scanner *scanner, const listsync_json_value **names) {
    *names = scanner->shape;
    return scanner->shape_count > 0 ? scanner->shape_count : 0;
}

// MARK: Tokens

static inline bool is_digit(uint8_t byte) {
    return (uint8_t)(byte - '0') < 10;
}

/// The index of the first byte after `index` that is not JSON whitespace;
/// `*line_feeds` notes whether a LF was skipped.
__attribute__((always_inline)) static inline int64_t skip_whitespace(const uint8_t *base, int64_t count, int64_t index, bool *line_feeds) {
    // The usual cases first: no whitespace, or one space. (Every whitespace
    // byte is at most a space.)
    if (index < count && base[index] > ' ') return index;
    if (index + 1 < count && base[index] == ' ' && base[index + 1] > ' ') return index + 1;
    while (index < count && base[index] <= ' ') {
        uint8_t byte = base[index];
        if (byte == ' ' || byte == '\t' || byte == '\r') {
            index += 1;
        } else if (byte == '\n') {
            *line_feeds = true;
            index += 1;
        } else {
            break;
        }
    }
    return index;
}

static inline int hex_value(uint8_t byte) {
    if (is_digit(byte)) return byte - '0';
    if (byte >= 'a' && byte <= 'f') return byte - 'a' + 10;
    if (byte >= 'A' && byte <= 'F') return byte - 'A' + 10;
    return -1;
}

/// The value of the four hex digits at `index`, or -1.
static inline int32_t hex_quad(const uint8_t *base, int64_t count, int64_t index) {
    if (index + 4 > count) return -1;
    int32_t value = 0;
    for (int offset = 0; offset < 4; offset++) {
        int digit = hex_value(base[index + offset]);
        if (digit < 0) return -1;
        value = value << 4 | digit;
    }
    return value;
}

/// The escape whose backslash is at `index`: its code point in `*scalar`,
/// the index after it returned; -1 when it is not a valid escape.
static inline int64_t read_escape(const uint8_t *base, int64_t count, int64_t index, int32_t *scalar) {
    if (index + 1 >= count) return -1;
    switch (base[index + 1]) {
    case '"': *scalar = '"'; return index + 2;
    case '\\': *scalar = '\\'; return index + 2;
    case '/': *scalar = '/'; return index + 2;
    case 'b': *scalar = 0x08; return index + 2;
    case 'f': *scalar = 0x0C; return index + 2;
    case 'n': *scalar = '\n'; return index + 2;
    case 'r': *scalar = '\r'; return index + 2;
    case 't': *scalar = '\t'; return index + 2;
    case 'u': {
        int32_t unit = hex_quad(base, count, index + 2);
        if (unit < 0 || (unit >= 0xDC00 && unit <= 0xDFFF)) return -1;
        if (unit < 0xD800 || unit > 0xDBFF) {
            *scalar = unit;
            return index + 6;
        }
        // A high surrogate must be followed by an escaped low surrogate.
        if (index + 7 >= count || base[index + 6] != '\\' || base[index + 7] != 'u') return -1;
        int32_t low = hex_quad(base, count, index + 8);
        if (low < 0xDC00 || low > 0xDFFF) return -1;
        *scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        return index + 12;
    }
    default:
        return -1;
    }
}

/// The index of the first quote, backslash or control character at or
/// after `index`, or `count`.
__attribute__((always_inline)) static inline int64_t next_string_special(const uint8_t *base, int64_t count, int64_t index) {
#if LISTSYNC_X86_64
    while (index + 16 <= count) {
        __m128i bytes = _mm_loadu_si128((const __m128i *)(base + index));
        __m128i specials = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('"')), _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'))),
            _mm_cmpeq_epi8(_mm_max_epu8(bytes, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F)));
        const unsigned mask = (unsigned)_mm_movemask_epi8(specials);
        if (mask != 0) return index + __builtin_ctz(mask);
        index += 16;
    }
#endif
    while (index < count && base[index] != '"' && base[index] != '\\' && base[index] >= 0x20) index += 1;
    return index;
}

/// Reads the string whose opening quote is at `index`; returns the index
/// after its closing quote, or -1 when it is not a valid string (its
/// escapes included; its UTF-8 is the caller's to check, in bulk).
/// `*is_escaped` says whether it has escapes.
__attribute__((always_inline)) static inline int64_t read_string(const uint8_t *base, int64_t count, int64_t index, bool *is_escaped) {
    index += 1;
    *is_escaped = false;
    for (;;) {
        index = next_string_special(base, count, index);
        if (index >= count || base[index] < 0x20) return -1;
        if (base[index] == '"') break;
        int32_t scalar;
        index = read_escape(base, count, index, &scalar);
        if (index < 0) return -1;
        *is_escaped = true;
    }
    return index + 1;
}

/// The index of the first byte at or after `index` that is not a digit.
__attribute__((always_inline)) static inline int64_t skip_digits(const uint8_t *base, int64_t count, int64_t index) {
#if LISTSYNC_X86_64
    // Sixteen at a time: a byte is a digit when it is at most 9 above '0'.
    while (index + 16 <= count) {
        __m128i offsets = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(base + index)), _mm_set1_epi8('0'));
        int digits = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(offsets, _mm_set1_epi8(9)), _mm_set1_epi8(9)));
        if (digits != 0xFFFF) return index + __builtin_ctz((unsigned)~digits);
        index += 16;
    }
#endif
    while (index < count && is_digit(base[index])) index += 1;
    return index;
}

/// Reads the number at `index` (RFC 8259 grammar); returns the index after
/// it, or -1.
__attribute__((always_inline)) static inline int64_t read_number(const uint8_t *base, int64_t count, int64_t index) {
    if (base[index] == '-') index += 1;
    if (index >= count || !is_digit(base[index])) return -1;
    if (base[index] == '0') {
        index += 1;
        if (index < count && is_digit(base[index])) return -1;
    } else {
        index = skip_digits(base, count, index);
    }
    if (index < count && base[index] == '.') {
        index += 1;
        if (index >= count || !is_digit(base[index])) return -1;
        index = skip_digits(base, count, index);
    }
    if (index < count && (base[index] | 0x20) == 'e') {
        index += 1;
        if (index < count && (base[index] == '+' || base[index] == '-')) index += 1;
        if (index >= count || !is_digit(base[index])) return -1;
        index = skip_digits(base, count, index);
    }
    return index;
}

/// Reads the scalar value at `index`; returns the index after it (-1: not
/// one the fast path reads), its kind in `*kind`.
__attribute__((always_inline)) static inline int64_t read_scalar(const uint8_t *base, int64_t count, int64_t index, uint8_t *kind) {
    if (index >= count) return -1;
    uint8_t byte = base[index];
    if (byte == '"') {
        bool is_escaped;
        int64_t end = read_string(base, count, index, &is_escaped);
        *kind = is_escaped ? LISTSYNC_JSON_ESCAPED_STRING : LISTSYNC_JSON_STRING;
        return end;
    }
    *kind = LISTSYNC_JSON_LITERAL;
    if (byte == 't') return index + 4 <= count && memcmp(base + index, "true", 4) == 0 ? index + 4 : -1;
    if (byte == 'f') return index + 5 <= count && memcmp(base + index, "false", 5) == 0 ? index + 5 : -1;
    if (byte == 'n') return index + 4 <= count && memcmp(base + index, "null", 4) == 0 ? index + 4 : -1;
    *kind = LISTSYNC_JSON_NUMBER;
    return read_number(base, count, index);
}

// MARK: Canonical text

static const char hex_digits[] = "0123456789abcdef";

/// Appends the canonical form of the (valid) string whose quotes are at
/// `start` and `end - 1`: escapes decoded, then written in their one
/// spelling. Returns the new end of `text`.
static size_t append_canonical_string(uint8_t *text, size_t length, const uint8_t *base, int64_t start, int64_t end) {
    text[length++] = '"';
    int64_t index = start + 1;
    const int64_t body_end = end - 1;
    while (index < body_end) {
        if (base[index] != '\\') {
            text[length++] = base[index++];
            continue;
        }
        int32_t scalar = 0;
        index = read_escape(base, end, index, &scalar);
        switch (scalar) {
        case '"': text[length++] = '\\'; text[length++] = '"'; break;
        case '\\': text[length++] = '\\'; text[length++] = '\\'; break;
        case 0x08: text[length++] = '\\'; text[length++] = 'b'; break;
        case 0x0C: text[length++] = '\\'; text[length++] = 'f'; break;
        case '\n': text[length++] = '\\'; text[length++] = 'n'; break;
        case '\r': text[length++] = '\\'; text[length++] = 'r'; break;
        case '\t': text[length++] = '\\'; text[length++] = 't'; break;
        default:
            if (scalar < 0x20) {
                text[length++] = '\\';
                text[length++] = 'u';
                text[length++] = '0';
                text[length++] = '0';
                text[length++] = (uint8_t)hex_digits[scalar >> 4];
                text[length++] = (uint8_t)hex_digits[scalar & 0xF];
            } else if (scalar < 0x80) {
                text[length++] = (uint8_t)scalar;
            } else if (scalar < 0x800) {
                text[length++] = (uint8_t)(0xC0 | scalar >> 6);
                text[length++] = (uint8_t)(0x80 | (scalar & 0x3F));
            } else if (scalar < 0x10000) {
                text[length++] = (uint8_t)(0xE0 | scalar >> 12);
                text[length++] = (uint8_t)(0x80 | (scalar >> 6 & 0x3F));
                text[length++] = (uint8_t)(0x80 | (scalar & 0x3F));
            } else {
                text[length++] = (uint8_t)(0xF0 | scalar >> 18);
                text[length++] = (uint8_t)(0x80 | (scalar >> 12 & 0x3F));
                text[length++] = (uint8_t)(0x80 | (scalar >> 6 & 0x3F));
                text[length++] = (uint8_t)(0x80 | (scalar & 0x3F));
            }
        }
    }
    text[length++] = '"';
    return length;
}

/// Makes room for `needed` bytes of canonical text.
static bool reserve_text(listsync_json_scanner *scanner, size_t needed) {
    if (needed <= scanner->text_capacity) return true;
    size_t capacity = scanner->text_capacity * 2;
    while (capacity < needed) capacity *= 2;
    uint8_t *text = realloc(scanner->text, capacity);
    if (text == NULL) return false;
    scanner->text = text;
    scanner->text_capacity = capacity;
    return true;
}

// MARK: Records

/// Whether the string at `index` (its opening quote) is the name `name`
/// (spelled with the same bytes): its bytes and its closing quote compared
/// with those of `name`, which is earlier in the input.
__attribute__((always_inline)) static inline bool is_name(
    const uint8_t *base, int64_t count, int64_t index, listsync_json_value name)
{
    const uint32_t length = name.end - name.start + 1;
    if (index + 1 + (int64_t)length > count) return false;
#if LISTSYNC_X86_64
    // Names are short: one 16-byte comparison, when the input has the bytes.
    if (length <= 16 && index + 17 <= count && (int64_t)name.start + 16 <= count) {
        __m128i equal = _mm_cmpeq_epi8(
            _mm_loadu_si128((const __m128i *)(base + index + 1)), _mm_loadu_si128((const __m128i *)(base + name.start)));
        return ((uint32_t)_mm_movemask_epi8(equal) | ~((1u << length) - 1)) == 0xFFFFFFFFu;
    }
#endif
    return memcmp(base + index + 1, base + name.start, length) == 0;
}

/// Orders names by their bytes (a prefix first); 0 when equal.
static inline int compare_names(const uint8_t *base, const member *left, const member *right) {
    uint32_t left_length = left->name_end - left->name_start, right_length = right->name_end - right->name_start;
    int common = memcmp(
        base + left->name_start, base + right->name_start, left_length < right_length ? left_length : right_length);
    if (common != 0) return common;
    return (int)left_length - (int)right_length;
}

/// Makes the members of the object record just read the scanner's shape:
/// sorts them (false on a repeated name, which the fast path leaves to the
/// complete scanner) and finds the fields among them.
static bool take_shape(listsync_json_scanner *scanner, const uint8_t *base, int32_t count) {
    int32_t order[MAXIMUM_MEMBERS];
    for (int32_t position = 0; position < count; position++) {
        // Insertion sort: objects are small, and often nearly sorted.
        const member *moving = &scanner->members[position];
        int32_t slot = position;
        while (slot > 0) {
            int comparison = compare_names(base, &scanner->members[order[slot - 1]], moving);
            if (comparison == 0) return false;
            if (comparison < 0) break;
            order[slot] = order[slot - 1];
            slot -= 1;
        }
        order[slot] = position;
    }
    // The pieces, with room for the 32-byte moves that append them.
    size_t pieces_length = 32;
    for (int32_t position = 0; position < count; position++) {
        pieces_length += scanner->members[position].name_end - scanner->members[position].name_start + 4;
    }
    if (pieces_length > scanner->pieces_capacity) {
        uint8_t *pieces = realloc(scanner->pieces, pieces_length);
        if (pieces == NULL) return false;
        scanner->pieces = pieces;
        scanner->pieces_capacity = pieces_length;
    }
    uint32_t piece_end = 0;
    for (int32_t position = 0; position < count; position++) {
        const member *sorted = &scanner->members[order[position]];
        const uint32_t length = sorted->name_end - sorted->name_start;
        scanner->pieces[piece_end] = ',';
        scanner->pieces[piece_end + 1] = '"';
        memcpy(scanner->pieces + piece_end + 2, base + sorted->name_start, length);
        scanner->pieces[piece_end + 2 + length] = '"';
        scanner->pieces[piece_end + 3 + length] = ':';
        piece_end += length + 4;
        scanner->piece_ends[position] = piece_end;
    }
    for (int32_t position = 0; position < count; position++) {
        const member *current = &scanner->members[position];
        scanner->order[position] = order[position];
        scanner->shape[position] = (listsync_json_value){current->name_start, current->name_end, LISTSYNC_JSON_STRING};
        scanner->shape_fields[position] = -1;
        for (int64_t field = 0; field < scanner->field_count; field++) {
            const listsync_json_field *candidate = &scanner->fields[field];
            if ((int64_t)(current->name_end - current->name_start) == candidate->length
                && memcmp(base + current->name_start, candidate->name, (size_t)candidate->length) == 0)
            {
                scanner->shape_fields[position] = (int32_t)field;
                break;
            }
        }
    }
    scanner->shape_count = count;
    return true;
}

/// The room the canonical text keeps after its end for `append_bytes`.
#define TEXT_SLACK 32

/// Appends `base[start..<end]` at `text`, which has TEXT_SLACK bytes of
/// room after them; returns the new end. `base` has `count` bytes. Names and
/// values are short: one or two 16-byte moves when `base` has the bytes,
/// not a call.
__attribute__((always_inline)) static inline uint8_t *append_bytes(
    uint8_t *text, const uint8_t *base, int64_t count, uint32_t start, uint32_t end)
{
    const uint32_t length = end - start;
#if LISTSYNC_X86_64
    if (length <= 32 && (int64_t)start + 32 <= count) {
        _mm_storeu_si128((__m128i *)text, _mm_loadu_si128((const __m128i *)(base + start)));
        if (length > 16) {
            _mm_storeu_si128((__m128i *)(text + 16), _mm_loadu_si128((const __m128i *)(base + start + 16)));
        }
        return text + length;
    }
#endif
    (void)count;
    memcpy(text, base + start, length);
    return text + length;
}

/// Appends the canonical form of the scalar `base[start..<end]`.
__attribute__((always_inline)) static inline uint8_t *append_scalar(
    uint8_t *text, const uint8_t *base, int64_t count, uint32_t start, uint32_t end, uint8_t kind)
{
    if (kind == LISTSYNC_JSON_ESCAPED_STRING) return text + append_canonical_string(text, 0, base, start, end);
    return append_bytes(text, base, count, start, end);
}

/// Reads the members of the object record at `start` one token after the
/// other, checking each name against the last record's while they agree;
/// returns their count (-1: not a record the fast path reads) and sets
/// `*end` to the index after the record.
static int32_t read_members(
    listsync_json_scanner *scanner, const uint8_t *base, int64_t count, int64_t start, bool is_line, int64_t *end)
{
    bool line_feeds = false;
    int32_t member_count = 0;
    // Whether the names so far are those of the last object record: then
    // each name is checked against the one expected, not scanned.
    bool is_same_shape = scanner->shape_count >= 0;
    int64_t index = skip_whitespace(base, count, start + 1, &line_feeds);
    if (index < count && base[index] == '}') {
        index += 1;
    } else {
        for (;;) {
            if (index >= count || base[index] != '"' || member_count == MAXIMUM_MEMBERS) return -1;
            int64_t name_end;
            is_same_shape = is_same_shape && member_count < scanner->shape_count
                && is_name(base, count, index, scanner->shape[member_count]);
            if (is_same_shape) {
                name_end = index + 2 + (scanner->shape[member_count].end - scanner->shape[member_count].start);
            } else {
                bool is_escaped;
                name_end = read_string(base, count, index, &is_escaped);
                if (name_end < 0 || is_escaped) return -1;
            }
            member *current = &scanner->members[member_count++];
            current->name_start = (uint32_t)(index + 1);
            current->name_end = (uint32_t)(name_end - 1);
            index = skip_whitespace(base, count, name_end, &line_feeds);
            if (index >= count || base[index] != ':') return -1;
            index = skip_whitespace(base, count, index + 1, &line_feeds);
            int64_t value_end = read_scalar(base, count, index, &current->kind);
            if (value_end < 0) return -1;
            current->value_start = (uint32_t)index;
            current->value_end = (uint32_t)value_end;
            index = skip_whitespace(base, count, value_end, &line_feeds);
            if (index < count && base[index] == ',') {
                index = skip_whitespace(base, count, index + 1, &line_feeds);
                continue;
            }
            if (index < count && base[index] == '}') {
                index += 1;
                break;
            }
            return -1;
        }
    }
    if (is_line && line_feeds) return -1;
    *end = index;
    return member_count;
}

/// Whether the members just read have the names of the scanner's shape.
static inline bool has_shape_names(const listsync_json_scanner *scanner, const uint8_t *base, int32_t count) {
    for (int32_t position = 0; position < count; position++) {
        const member *current = &scanner->members[position];
        const listsync_json_value name = scanner->shape[position];
        if (current->name_end - current->name_start != name.end - name.start
            || memcmp(base + current->name_start, base + name.start, name.end - name.start) != 0)
        {
            return false;
        }
    }
    return true;
}

/// Remembers the layout of the object record `base[start..<end]` whose
/// members were just read.
static inline void learn_layout(listsync_json_scanner *scanner, int64_t start, int64_t end, int32_t count) {
    uint32_t gap_start = (uint32_t)start;
    for (int32_t position = 0; position < count; position++) {
        scanner->layout[position] = (listsync_json_value){gap_start, scanner->members[position].value_start, 0};
        gap_start = scanner->members[position].value_end;
    }
    scanner->layout[count] = (listsync_json_value){gap_start, (uint32_t)end, 0};
    scanner->layout_count = count;
}

/// Whether the `length` bytes at `index` are those at `earlier` (before
/// them in the input).
__attribute__((always_inline)) static inline bool same_bytes(
    const uint8_t *base, int64_t count, int64_t index, uint32_t earlier, uint32_t length)
{
    if (index + (int64_t)length > count) return false;
#if LISTSYNC_X86_64
    // Short runs: one or two 16-byte comparisons, when the input has the bytes.
    if (length <= 32 && index + 32 <= count) {
        uint32_t equal = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(
            _mm_loadu_si128((const __m128i *)(base + index)), _mm_loadu_si128((const __m128i *)(base + earlier))));
        if (length > 16) {
            equal &= (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(
                _mm_loadu_si128((const __m128i *)(base + index + 16)),
                _mm_loadu_si128((const __m128i *)(base + earlier + 16)))) << 16 | 0xFFFF;
            return (equal | (length == 32 ? 0 : ~((1u << length) - 1))) == 0xFFFFFFFFu;
        }
        return (equal | ~((1u << length) - 1)) == 0xFFFFFFFFu;
    }
#endif
    return memcmp(base + index, base + earlier, length) == 0;
}

/// Reads the object record at `start` if it is laid out like the last one
/// read in full (see `layout`), filling `members`; returns the index after
/// it, or -1.
__attribute__((always_inline)) static inline int64_t read_like_layout(
    listsync_json_scanner *scanner, const uint8_t *base, int64_t count, int64_t start)
{
    const int32_t member_count = scanner->layout_count;
    int64_t index = start;
    for (int32_t position = 0;; position++) {
        const listsync_json_value gap = scanner->layout[position];
        if (!same_bytes(base, count, index, gap.start, gap.end - gap.start)) return -1;
        index += gap.end - gap.start;
        if (position == member_count) return index;
        member *current = &scanner->members[position];
        int64_t value_end = read_scalar(base, count, index, &current->kind);
        if (value_end < 0) return -1;
        current->value_start = (uint32_t)index;
        current->value_end = (uint32_t)value_end;
        index = value_end;
    }
}

/// Reads the record at `start`: fills `*record` and `captures`, returns
/// true; false when the fast path does not read it. `*is_new_shape` says
/// whether it is an object with other member names than the last one.
static bool read_record(
    listsync_json_scanner *scanner, const uint8_t *base, int64_t count, int64_t start, bool is_line,
    listsync_json_record *record, listsync_json_value *captures, bool *is_new_shape)
{
    *is_new_shape = false;
    for (int64_t slot = 0; slot < scanner->capture_count; slot++) captures[slot] = (listsync_json_value){0, 0, 0};
    if (base[start] != '{') {
        uint8_t kind;
        int64_t end = read_scalar(base, count, start, &kind);
        if (end < 0 || !reserve_text(scanner, (size_t)(end - start) + TEXT_SLACK)) return false;
        uint8_t *text_end = append_scalar(scanner->text, base, count, (uint32_t)start, (uint32_t)end, kind);
        XXH128_hash_t hash = XXH3_128bits(scanner->text, (size_t)(text_end - scanner->text));
        *record = (listsync_json_record){start, end, hash.low64, hash.high64};
        return true;
    }
    int64_t end = scanner->layout_count >= 0 ? read_like_layout(scanner, base, count, start) : -1;
    int32_t member_count = scanner->layout_count;
    if (end < 0) {
        member_count = read_members(scanner, base, count, start, is_line, &end);
        if (member_count < 0) return false;
        if (member_count != scanner->shape_count || !has_shape_names(scanner, base, member_count)) {
            if (!take_shape(scanner, base, member_count)) return false;
            *is_new_shape = true;
        }
        learn_layout(scanner, start, end, member_count);
    }
    if (!reserve_text(scanner, (size_t)(end - start) + 2 + TEXT_SLACK)) return false;
    uint8_t *const text = scanner->text;
    uint8_t *text_end = text;
    for (int32_t position = 0; position < member_count; position++) {
        const int32_t index_in_file = scanner->order[position];
        const member *current = &scanner->members[index_in_file];
        const int32_t field = scanner->shape_fields[index_in_file];
        if (field >= 0) {
            const listsync_json_field *wanted = &scanner->fields[field];
            if (wanted->capture >= 0) {
                captures[wanted->capture] = (listsync_json_value){current->value_start, current->value_end, current->kind};
            }
            if (wanted->is_ignored) continue;
        }
        // `,"name":` (names here have no escapes).
        const uint32_t piece_start = position == 0 ? 0 : scanner->piece_ends[position - 1];
        text_end = append_bytes(
            text_end, scanner->pieces, (int64_t)scanner->pieces_capacity, piece_start, scanner->piece_ends[position]);
        text_end = append_scalar(text_end, base, count, current->value_start, current->value_end, current->kind);
    }
    // The first member's comma becomes the brace.
    if (text_end == text) *text_end++ = '{'; else text[0] = '{';
    *text_end++ = '}';
    XXH128_hash_t hash = XXH3_128bits(text, (size_t)(text_end - text));
    *record = (listsync_json_record){start, end, hash.low64, hash.high64};
    return true;
}

/// What follows the record that ends at `end`: the start of the next
/// record (status LISTSYNC_JSON_AT_RECORD), or `end` itself when the caller
/// must see what comes (LISTSYNC_JSON_AFTER_RECORD), or the end of the input
/// (LISTSYNC_JSON_AT_END). Blank lines skipped are added to `*blank_lines`.
static inline int64_t follow(
    const uint8_t *base, int64_t count, int64_t end, int64_t limit, bool is_line, int64_t *blank_lines,
    int32_t *status)
{
    *status = LISTSYNC_JSON_AT_RECORD;
    if (!is_line) {
        bool line_feeds = false;
        int64_t index = skip_whitespace(base, count, end, &line_feeds);
        if (index < count && base[index] == ',') {
            index = skip_whitespace(base, count, index + 1, &line_feeds);
            // A comma before `]` is an error the caller reports.
            if (index < count && base[index] != ']') return index;
        }
        *status = LISTSYNC_JSON_AFTER_RECORD;
        return end;
    }
    int64_t index = end;
    while (index < count && (base[index] == ' ' || base[index] == '\t' || base[index] == '\r')) index += 1;
    if (index < count && base[index] != '\n') {
        *status = LISTSYNC_JSON_AFTER_RECORD;
        return end;
    }
    // At a line end: on to the next line that holds a record, counting the
    // blank ones, but not past a line that starts at `limit`.
    for (;;) {
        if (index >= count) {
            *status = LISTSYNC_JSON_AT_END;
            return count;
        }
        index += 1;
        if (index >= limit && index < count) return index;
        while (index < count && (base[index] == ' ' || base[index] == '\t' || base[index] == '\r')) index += 1;
        if (index < count && base[index] != '\n') return index;
        if (index < count) *blank_lines += 1;
    }
}

/// Makes `record` (with its captures) ready as `*ready` when its identity
/// can be taken here: its content, or a key whose bytes are canonical.
__attribute__((always_inline)) static inline void make_ready(
    listsync_json_record *record, const listsync_json_value *captures, const uint8_t *base, int32_t identity,
    int64_t key_slot, listsync_record *ready)
{
    uint64_t identity_low = record->content_low, identity_high = record->content_high;
    record->is_ready = identity == LISTSYNC_IDENTITY_CONTENT;
    if (identity == LISTSYNC_IDENTITY_KEY) {
        const listsync_json_value key = captures[key_slot];
        if (key.kind == LISTSYNC_JSON_STRING || key.kind == LISTSYNC_JSON_NUMBER || key.kind == LISTSYNC_JSON_LITERAL) {
            XXH128_hash_t hash = XXH3_128bits(base + key.start, key.end - key.start);
            identity_low = hash.low64;
            identity_high = hash.high64;
            record->is_ready = true;
        }
    }
    if (record->is_ready) {
        *ready = (listsync_record){
            identity_low, identity_high, record->content_low, record->content_high, (uint32_t)record->start,
            (uint32_t)(record->end - record->start)};
    }
}

void listsync_json_scan(
    listsync_json_scanner *scanner, const uint8_t *base, int64_t count, int64_t start, int64_t limit, int32_t mode,
    listsync_json_record *records, int64_t record_capacity, listsync_json_value *captures, int32_t identity,
    int64_t key_slot, listsync_record *ready, listsync_json_batch *batch)
{
    const bool is_line = mode == LISTSYNC_JSON_LINES;
    int64_t index = start, record_count = 0, blank_lines = 0;
    int32_t status = LISTSYNC_JSON_AT_RECORD;
    bool is_new_shape = false;
    while (record_count < record_capacity && index < count && index < limit) {
        listsync_json_record *record = &records[record_count];
        listsync_json_value *record_captures = captures + record_count * scanner->capture_count;
        bool has_new_names;
        if (!read_record(scanner, base, count, index, is_line, record, record_captures, &has_new_names)) break;
        is_new_shape = has_new_names;
        make_ready(record, record_captures, base, identity, key_slot, &ready[record_count]);
        record_count += 1;
        index = follow(base, count, record->end, limit, is_line, &blank_lines, &status);
        // The caller notes a new shape before the records after it.
        if (status != LISTSYNC_JSON_AT_RECORD || is_new_shape) break;
    }
    batch->record_count = record_count;
    batch->blank_line_count = blank_lines;
    batch->next = index;
    batch->status = status;
    batch->has_new_shape = is_new_shape;
}

// MARK: Splitting

int64_t listsync_json_split_point(const uint8_t *base, int64_t count, int64_t start, int32_t mode) {
    int64_t index = start + (count - start) / 2;
    if (mode == LISTSYNC_JSON_LINES) {
        const uint8_t *line_feed = memchr(base + index, '\n', (size_t)(count - index));
        return line_feed != NULL && line_feed + 1 < base + count ? line_feed - base + 1 : -1;
    }
    for (; index < count; index++) {
        if (base[index] != '}') continue;
        bool line_feeds = false;
        int64_t comma = skip_whitespace(base, count, index + 1, &line_feeds);
        if (comma >= count || base[comma] != ',') continue;
        int64_t brace = skip_whitespace(base, count, comma + 1, &line_feeds);
        if (brace < count && base[brace] == '{') return brace;
    }
    return -1;
}
