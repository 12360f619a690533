/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Java's String.hashCode over a UTF-8 key (see hash.h).
 * Arithmetic is unsigned so the int32 wrap-around is defined in C.
 */
#include "coordinator/hash.h"

#define GR_UTF16_REPLACEMENT  0xFFFDu
#define GR_UTF16_SURROGATE_HI 0xD800u
#define GR_UTF16_SURROGATE_LO 0xDC00u
#define GR_UNICODE_BMP_END    0x10000u
#define GR_UNICODE_MAX        0x10FFFFu

/*
 * Decodes one code point at s[*i], advancing *i; malformed input yields the
 * replacement character and consumes one byte.
 */
static uint32_t next_code_point(const unsigned char *s, size_t len, size_t *i)
{
    unsigned char c = s[*i];
    int extra;
    uint32_t cp, min;
    if (c < 0x80) {
        (*i)++;
        return c;
    } else if ((c & 0xE0) == 0xC0) {
        extra = 1, cp = c & 0x1Fu, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        extra = 2, cp = c & 0x0Fu, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        extra = 3, cp = c & 0x07u, min = GR_UNICODE_BMP_END;
    } else {
        (*i)++;
        return GR_UTF16_REPLACEMENT;
    }
    if (*i + (size_t)extra >= len) { /* truncated sequence */
        (*i)++;
        return GR_UTF16_REPLACEMENT;
    }
    for (int k = 1; k <= extra; k++) {
        unsigned char cc = s[*i + (size_t)k];
        if ((cc & 0xC0) != 0x80) {
            (*i)++;
            return GR_UTF16_REPLACEMENT;
        }
        cp = (cp << 6) | (cc & 0x3Fu);
    }
    if (cp < min || cp > GR_UNICODE_MAX || (cp >= GR_UTF16_SURROGATE_HI && cp < 0xE000u)) {
        (*i)++;
        return GR_UTF16_REPLACEMENT;
    }
    *i += (size_t)extra + 1;
    return cp;
}

int32_t gr_java_string_hash(const char *id, size_t len)
{
    const unsigned char *s = (const unsigned char *)id;
    uint32_t h = 0;
    size_t i = 0;
    while (i < len) {
        uint32_t cp = next_code_point(s, len, &i);
        if (cp >= GR_UNICODE_BMP_END) {
            cp -= GR_UNICODE_BMP_END;
            h = 31u * h + (GR_UTF16_SURROGATE_HI + (cp >> 10));
            h = 31u * h + (GR_UTF16_SURROGATE_LO + (cp & 0x3FFu));
        } else {
            h = 31u * h + cp;
        }
    }
    return (int32_t)h;
}

int32_t gr_kafka_abs(int32_t n)
{
    if (n == INT32_MIN)
        return 0;
    return n < 0 ? -n : n;
}

size_t gr_coordinator_key_bucket(gr_str_t id, size_t bucket_count)
{
    uint32_t h = (uint32_t)gr_java_string_hash(id.ptr, id.len > 0 ? (size_t)id.len : 0);
    return h % bucket_count;
}

int32_t gr_coordinator_partition_for(const char *id, size_t len, int32_t partitions)
{
    return gr_kafka_abs(gr_java_string_hash(id, len)) % partitions;
}
