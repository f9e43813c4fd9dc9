#ifndef LISTSYNC_UTF8_SEQUENCES_H
#define LISTSYNC_UTF8_SEQUENCES_H

// UTF-8 one sequence at a time: the reference for where a text stops being
// well-formed, and quick enough for the short strings of a JSON record.

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/// The length of the well-formed sequence whose lead byte is at `index`, or
/// 0 (Unicode Table 3-7).
__attribute__((always_inline)) static inline int sequence_length(const uint8_t *bytes, int64_t index, int64_t count) {
    uint8_t lead = bytes[index];
    int length;
    uint8_t second_low = 0x80, second_high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead == 0xE0) {
        length = 3; second_low = 0xA0;
    } else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) {
        length = 3;
    } else if (lead == 0xED) {
        length = 3; second_high = 0x9F;
    } else if (lead == 0xF0) {
        length = 4; second_low = 0x90;
    } else if (lead >= 0xF1 && lead <= 0xF3) {
        length = 4;
    } else if (lead == 0xF4) {
        length = 4; second_high = 0x8F;
    } else {
        return 0;
    }
    if (index + length > count) return 0;
    uint8_t second = bytes[index + 1];
    if (second < second_low || second > second_high) return 0;
    for (int offset = 2; offset < length; offset++) {
        if ((bytes[index + offset] & 0xC0) != 0x80) return 0;
    }
    return length;
}

/// The offset of the first byte of the first ill-formed sequence in
/// `bytes[0..<count]`, or `count`.
__attribute__((always_inline)) static inline int64_t utf8_first_invalid(const uint8_t *bytes, int64_t count) {
    int64_t index = 0;
    while (index < count) {
        // ASCII runs eight bytes at a time.
        if (index + 8 <= count) {
            uint64_t word;
            memcpy(&word, bytes + index, 8);
            if ((word & 0x8080808080808080ULL) == 0) {
                index += 8;
                continue;
            }
        }
        if (bytes[index] < 0x80) {
            index += 1;
            continue;
        }
        int length = sequence_length(bytes, index, count);
        if (length == 0) return index;
        index += length;
    }
    return count;
}

#endif
