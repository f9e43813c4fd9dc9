#ifndef LISTSYNC_LIST_FORMATS_SCAN_H
#define LISTSYNC_LIST_FORMATS_SCAN_H

// The byte-level hot paths of ListFormats, written in C so that they can use
// SIMD: SSE2 everywhere (the x86-64 baseline), AVX2 and AVX-512
// where the CPU has it, chosen at run time. Everything here works on offsets
// into one buffer and reports problems as offsets; ListFormats turns them
// into positioned errors.

#include <stdbool.h>
#include <stdint.h>

// MARK: UTF-8

/// Whether `bytes[0..<count]` is well-formed UTF-8 (no overlong forms, no
/// surrogates, nothing above U+10FFFF). Vectorized; says nothing about where
/// a problem is — `listsync_utf8_first_invalid` does.
bool listsync_utf8_is_valid(const uint8_t *bytes, int64_t count);

/// The offset of the first byte of the first ill-formed sequence in
/// `bytes[0..<count]`, or `count` when all of it is well-formed.
int64_t listsync_utf8_first_invalid(const uint8_t *bytes, int64_t count);

/// The checks `listsync_utf8_is_valid` chooses from: the best the CPU has.
enum {
    LISTSYNC_UTF8_SCALAR = 0,
    LISTSYNC_UTF8_AVX2 = 1,
    LISTSYNC_UTF8_AVX512 = 2,
};

/// `listsync_utf8_is_valid` with the check `kernel` (one of
/// `LISTSYNC_UTF8_…`): 1 when well-formed, 0 when not, -1 when the CPU
/// does not have that check. For tests, which compare them.
int32_t listsync_utf8_is_valid_with(int32_t kernel, const uint8_t *bytes, int64_t count);

// MARK: CSV

/// A CSV row. Its fields are described by separators: the offset of the
/// byte that ends each field (a delimiter, a line end, or the end of the
/// input). Field *i* runs from the row's start (*i* = 0) or one past
/// separator *i* - 1, to separator *i*; a field that starts with a quote is
/// quoted, its value between that quote and the one before its end (`""`
/// inside stands for a quote).
typedef struct listsync_csv_row {
    /// The row's first byte.
    int64_t start;
    /// The end of the row's content (its line ending excluded).
    int64_t end;
    /// After the line ending.
    int64_t next;
    /// The separators of the row's fields are the batch's separators
    /// `first_separator..<first_separator + field_count`.
    int32_t first_separator;
    int32_t field_count;
    /// Whether the row holds a quote anywhere, and whether one of them is
    /// inside an unquoted field (a "loose" quote).
    bool has_quote;
    bool has_loose_quote;
} listsync_csv_row;

/// Why `listsync_csv_scan` stopped.
enum {
    /// At the end of the input.
    LISTSYNC_CSV_END = 0,
    /// The row buffer is full, or the next row's separators do not fit in
    /// the separator buffer (no row at all: the buffer is too small for one).
    LISTSYNC_CSV_FULL = 1,
    /// A quoted field opened at `error_offset` is never closed.
    LISTSYNC_CSV_UNTERMINATED_QUOTE = 2,
    /// The byte at `error_offset` follows a closing quote and is neither the
    /// delimiter nor a line end.
    LISTSYNC_CSV_CHARACTER_AFTER_CLOSING_QUOTE = 3,
    /// The bytes scanned are not well-formed UTF-8 (the rows say nothing).
    LISTSYNC_CSV_INVALID_UTF8 = 4,
};

/// What one call of `listsync_csv_scan` found.
typedef struct listsync_csv_batch {
    int64_t row_count;
    /// Blank lines skipped (LF, CRLF or a lone CR each count as one).
    int64_t blank_line_count;
    /// Where to continue: the start of the row that did not fit, or `count`.
    int64_t next;
    /// See LISTSYNC_CSV_UNTERMINATED_QUOTE and
    /// LISTSYNC_CSV_CHARACTER_AFTER_CLOSING_QUOTE.
    int64_t error_offset;
    int32_t status;
} listsync_csv_batch;

/// The room `listsync_csv_scan` needs after the last separator it may write.
#define LISTSYNC_CSV_SEPARATOR_SLACK 72

/// Splits the rows from `start` into fields, checking that they are
/// well-formed UTF-8 on the way (RFC 4180, as Python's `csv`
/// reads it: `""` is a quote inside a quoted field, line breaks are allowed
/// there, a quote inside an unquoted field is an ordinary character; a row
/// ends at LF, CRLF or a lone CR), skipping blank lines before each row.
/// Fills at most `row_capacity` rows, and separators up to
/// `separator_capacity` - LISTSYNC_CSV_SEPARATOR_SLACK, and stops before
/// a row (or blank line) that starts at or after `limit`; the rows before an
/// error are complete. Offsets must fit in 32 bits.
void listsync_csv_scan(
    const uint8_t *base, int64_t count, int64_t start, int64_t limit, uint8_t delimiter,
    listsync_csv_row *rows, int64_t row_capacity,
    uint32_t *separators, int64_t separator_capacity,
    listsync_csv_batch *batch);

/// The ways `listsync_csv_scan` reads a 64-byte block, the best the CPU has
/// chosen at run time: SSE2 (scalar off x86-64), AVX2, or AVX-512 with
/// VBMI2 (one vector per block: its compares give the bitmasks at once, the
/// UTF-8 check takes one vector instead of two, and the separators' offsets
/// are compressed out of it). They find the same rows, fields and errors.
enum {
    LISTSYNC_CSV_BASELINE = 0,
    LISTSYNC_CSV_AVX2 = 1,
    LISTSYNC_CSV_AVX512 = 2,
};

/// `listsync_csv_scan` with `kernel` (one of `LISTSYNC_CSV_…`); false, and
/// nothing scanned, when the CPU does not have it. For tests, which compare
/// the kernels.
bool listsync_csv_scan_with(
    int32_t kernel, const uint8_t *base, int64_t count, int64_t start, int64_t limit, uint8_t delimiter,
    listsync_csv_row *rows, int64_t row_capacity,
    uint32_t *separators, int64_t separator_capacity,
    listsync_csv_batch *batch);

/// A place near the middle of `base[start..<count]` where a row probably
/// starts, to read a file in two halves: just after the first LF past the
/// middle that is outside quotes and that a row, not a blank line, follows.
/// -1 when there is none. Which side of the quotes the middle is on comes
/// from the first quote after it whose neighbours tell (field text after an
/// opening quote, before a closing one), else from counting the quotes from
/// `start`. A quote in an unquoted field can make the guess wrong; the
/// reader checks it.
int64_t listsync_csv_split_point(const uint8_t *base, int64_t count, int64_t start, uint8_t delimiter);

// MARK: Records

/// A record as ListFormats keeps it — its `ListRecord`, field for field, so
/// that records made here are added to a list in bulk: the identity's and
/// the content's XXH3-128, and the record's bytes.
typedef struct listsync_record {
    uint64_t identity_low;
    uint64_t identity_high;
    uint64_t content_low;
    uint64_t content_high;
    uint32_t start;
    uint32_t length;
} listsync_record;

/// What a record's identity is.
enum {
    /// Its content: the list has no key.
    LISTSYNC_IDENTITY_CONTENT = 0,
    /// One key field (a CSV column).
    LISTSYNC_IDENTITY_KEY = 1,
    /// Anything else (several key fields, sections): the caller's to make.
    LISTSYNC_IDENTITY_OTHER = 2,
};

/// A 128-bit hash, as its two halves.
typedef struct listsync_hash128 {
    uint64_t low;
    uint64_t high;
} listsync_hash128;

/// XXH3-128 (default secret, seed 0) of `bytes[0..<count]`, computed with
/// AVX2 when the CPU has it and the input is long enough for it to matter
/// (more than 240 bytes), else with SSE2. The same value either way: XXH3's
/// result does not depend on the instructions that compute it.
listsync_hash128 listsync_xxh3_128_dispatched(const void *bytes, int64_t count);

/// The ways `listsync_xxh3_128_dispatched` computes a long input's hash.
enum {
    LISTSYNC_XXH3_BASELINE = 0,
    LISTSYNC_XXH3_AVX2 = 1,
};

/// `listsync_xxh3_128_dispatched` computed with `kernel` (one of `LISTSYNC_XXH3_…`)
/// into `hash`; false when the CPU does not have that kernel. For tests,
/// which compare them.
bool listsync_xxh3_128_dispatched_with(int32_t kernel, const void *bytes, int64_t count, listsync_hash128 *hash);

/// The content hash of a CSV record whose canonical row hashes (XXH3-128) to
/// `row`, in a list whose published header gives `header_seed`: XXH3-128,
/// seeded with `header_seed`, of the 16 bytes of `row` (high half first, each
/// half big-endian). A header rename so changes every record's content while
/// its identity, taken from the row or the key, stays: every record is
/// updated with its new field names.
listsync_hash128 listsync_csv_content_hash(listsync_hash128 row, uint64_t header_seed);

/// The hashes of a row that `listsync_csv_hash_rows` could take from the
/// row's bytes as they are.
typedef struct listsync_csv_row_hashes {
    /// The record's content hash (`listsync_csv_content_hash`), when `has_content`.
    uint64_t content_low;
    uint64_t content_high;
    /// XXH3-128 of the row's canonical form, when `has_content`: the identity
    /// of a record without a key.
    uint64_t row_low;
    uint64_t row_high;
    /// XXH3-128 of the key field's value, when `has_key`.
    uint64_t key_low;
    uint64_t key_high;
    bool has_content;
    bool has_key;
    /// Whether the row's record is complete: its content and its identity
    /// were taken here.
    bool is_ready;
} listsync_csv_row_hashes;

/// Hashes the rows of a batch: the content of each row that has
/// `field_count` fields and whose bytes are its canonical form (every
/// quoted field needs its quotes: it holds the delimiter, a quote, CR or
/// LF; no loose quotes), when `hashes_content`, sealed with `header_seed`
/// (`listsync_csv_content_hash`); the value of field
/// `key_column` (unless -1) when the row has it and it needs no unescaping.
/// A row whose content and identity (`identity`, one of
/// `LISTSYNC_IDENTITY_…`) it took is ready: its record is in `records`.
/// Rows it cannot hash are left to the caller.
void listsync_csv_hash_rows(
    const uint8_t *base, uint8_t delimiter, const listsync_csv_row *rows, int64_t row_count,
    const uint32_t *separators, int64_t field_count, int64_t key_column, bool hashes_content, uint64_t header_seed,
    int32_t identity, listsync_csv_row_hashes *hashes, listsync_record *records);

// MARK: JSON

/// What a scanned JSON value is.
enum {
    /// No value: a field the record does not have.
    LISTSYNC_JSON_ABSENT = 0,
    /// A string without escapes: its bytes, quotes included, are canonical.
    LISTSYNC_JSON_STRING = 1,
    /// A string with escapes.
    LISTSYNC_JSON_ESCAPED_STRING = 2,
    /// A number: its literal text is canonical.
    LISTSYNC_JSON_NUMBER = 3,
    /// `true`, `false` or `null`.
    LISTSYNC_JSON_LITERAL = 4,
};

/// A value in the input: its bytes and kind.
typedef struct listsync_json_value {
    uint32_t start;
    uint32_t end;
    uint8_t kind;
} listsync_json_value;

/// A record the fast path read: its bytes and content hash.
typedef struct listsync_json_record {
    int64_t start;
    int64_t end;
    uint64_t content_low;
    uint64_t content_high;
    /// Whether its identity was taken too: its record is whole.
    bool is_ready;
} listsync_json_record;

/// A top-level member of object records that the reader needs: its value
/// captured in slot `capture` (or -1), or left out of the content.
typedef struct listsync_json_field {
    const uint8_t *name;
    int64_t length;
    int32_t capture;
    bool is_ignored;
} listsync_json_field;

/// How records follow each other.
enum {
    /// In a JSON array: `record, record, …`.
    LISTSYNC_JSON_ARRAY = 0,
    /// NDJSON: one record per line, blank lines skipped.
    LISTSYNC_JSON_LINES = 1,
};

/// Where `listsync_json_scan` stopped.
enum {
    /// At the start of a record that it leaves to the caller (one it does not
    /// read: nested values, escaped names, anything wrong), or for which it
    /// had no room.
    LISTSYNC_JSON_AT_RECORD = 0,
    /// Right after its last record: what follows (`]`, the end of a line, or
    /// something wrong) is the caller's.
    LISTSYNC_JSON_AFTER_RECORD = 1,
    /// At the end of the input (NDJSON).
    LISTSYNC_JSON_AT_END = 2,
};

/// What one call of `listsync_json_scan` found.
typedef struct listsync_json_batch {
    int64_t record_count;
    /// Blank lines skipped (NDJSON).
    int64_t blank_line_count;
    int64_t next;
    int32_t status;
    /// Whether the last record is an object whose member names (see
    /// `listsync_json_scanner_shape`) differ from those of the object record
    /// the scanner read before it.
    bool has_new_shape;
} listsync_json_batch;

/// The state of the JSON fast path over one input: the fields it looks for
/// and the member names of the last object record.
typedef struct listsync_json_scanner listsync_json_scanner;

/// A scanner that captures and ignores `fields` (copied), of which
/// `capture_count` capture; NULL when out of memory.
listsync_json_scanner *listsync_json_scanner_create(
    const listsync_json_field *fields, int64_t field_count, int64_t capture_count);

void listsync_json_scanner_destroy(listsync_json_scanner *scanner);

/// The member names (string values, quotes excluded) of the last object
/// record read, in file order; their count.
int64_t listsync_json_scanner_shape(const listsync_json_scanner *scanner, const listsync_json_value **names);

/// A place near the middle of `base[start..<count]` where a record probably
/// starts, to read a file in two halves: in an array, the `{` of the first
/// `},{` (whitespace around the comma allowed) past the middle; in NDJSON,
/// just after the first LF past the middle. -1 when there is none. A string
/// can hold `},{`; the reader checks the guess.
int64_t listsync_json_split_point(const uint8_t *base, int64_t count, int64_t start, int32_t mode);

/// Reads the records from `start` (the first byte of a record) as long as
/// they are flat — objects whose members are strings, numbers or literals,
/// or such scalars — well-formed (but for UTF-8, which the caller checks
/// over `start..<next` in bulk: bytes of 0x80 and above are taken only inside
/// strings), and separated as `mode` says, up to
/// `record_capacity`. For each it hashes the canonical JSON text (members
/// sorted by name, no whitespace, strings re-escaped in one spelling) with
/// XXH3-128 and captures the fields, `capture_count` values per record in
/// `captures`. When it can take a record's identity too (`identity`, one of
/// `LISTSYNC_IDENTITY_…`; a key is the value in capture slot `key_slot`, when
/// that value is its own canonical form), the record is ready, whole in
/// `ready` at the same index. Anything else stops it, and the caller reads
/// on from `next`. Stops after a record whose member names differ from the
/// record before, and before a record (or, in NDJSON, a line) that starts at
/// or after `limit`.
void listsync_json_scan(
    listsync_json_scanner *scanner, const uint8_t *base, int64_t count, int64_t start, int64_t limit, int32_t mode,
    listsync_json_record *records, int64_t record_capacity, listsync_json_value *captures, int32_t identity,
    int64_t key_slot, listsync_record *ready, listsync_json_batch *batch);

#endif
