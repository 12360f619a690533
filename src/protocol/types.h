/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Value types shared by the generated codec and its callers.
 *
 * Decoded strings, bytes and records point into the request buffer they were
 * decoded from: they live as long as that buffer and are not NUL-terminated.
 * A length of -1 means null (GR_NULL_LEN).
 */
#ifndef GR_PROTOCOL_TYPES_H
#define GR_PROTOCOL_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define GR_NULL_LEN (-1)

typedef struct gr_str {
    const char *ptr;
    int32_t len; /* GR_NULL_LEN for null */
} gr_str_t;

typedef struct gr_bytes {
    const uint8_t *ptr;
    int32_t len; /* GR_NULL_LEN for null */
} gr_bytes_t;

typedef struct gr_uuid {
    uint8_t b[16];
} gr_uuid_t;

/*
 * A records field: either bytes in memory (ptr) or, on the encode side only,
 * a range of a file that the output chain sends with sendfile (file != NULL;
 * the codec never reads it, it only reserves len bytes at that position).
 */
typedef struct gr_records {
    const uint8_t *ptr;
    int32_t len; /* GR_NULL_LEN for null */
    void *file;  /* opaque file reference owned by the caller, or NULL */
    int64_t file_off;
} gr_records_t;

static inline gr_str_t gr_str(const char *s)
{
    gr_str_t v = {s, s ? (int32_t)strlen(s) : GR_NULL_LEN};
    return v;
}

static inline bool gr_str_eq(gr_str_t a, gr_str_t b)
{
    if (a.len != b.len)
        return false;
    return a.len <= 0 || memcmp(a.ptr, b.ptr, (size_t)a.len) == 0;
}

static inline bool gr_str_eq_c(gr_str_t a, const char *s)
{
    return gr_str_eq(a, gr_str(s));
}

static inline bool gr_bytes_eq(gr_bytes_t a, gr_bytes_t b)
{
    if (a.len != b.len)
        return false;
    return a.len <= 0 || memcmp(a.ptr, b.ptr, (size_t)a.len) == 0;
}

static inline bool gr_uuid_is_zero(gr_uuid_t u)
{
    static const gr_uuid_t zero;
    return memcmp(u.b, zero.b, sizeof u.b) == 0;
}

#endif
