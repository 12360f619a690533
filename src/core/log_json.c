/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON line format (see logging.h): one object per line, keys in a
 * fixed order (time, level, logger, broker, message). Only the message and
 * the logger name come from outside, and both go through the escaper, which
 * keeps the output valid JSON and valid UTF-8 whatever the bytes: a log
 * line may quote a client id or a topic name as the client sent it.
 */
#include <stdio.h>
#include <string.h>

#include "core/logging.h"

#define REPLACEMENT "\\ufffd" /* U+FFFD, for a byte that starts no valid sequence */

/*
 * Length of the valid UTF-8 sequence at s (n bytes available): 1..4, or 0
 * when it is invalid, overlong, a surrogate or above U+10FFFF.
 */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min; /* the smallest code point of that length: below is overlong */
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0; /* a continuation byte, or a lead byte only overlong or too big forms use */
    }
    unsigned cp = c & (0x7fu >> len); /* the lead byte's payload bits */
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* The escape for byte c, or NULL when it goes out as it is; hex filled for \u00XX. */
static const char *escape_of(unsigned char c, char hex[7])
{
    switch (c) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    case '\b':
        return "\\b";
    case '\f':
        return "\\f";
    default:
        break;
    }
    if (c < 0x20 || c == 0x7f) {
        snprintf(hex, 7, "\\u%04x", c);
        return hex;
    }
    return NULL;
}

size_t gr_log_json_escape(char *out, size_t size, const char *in, size_t len, size_t *consumed)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t used = 0, i = 0;
    char hex[7];
    while (i < len) {
        const char *piece;
        size_t piece_len, step;
        size_t seq = utf8_sequence(s + i, len - i);
        const char *escape = seq == 1 ? escape_of(s[i], hex) : NULL;
        if (seq == 0) { /* one bad byte, one replacement: the next byte starts afresh */
            piece = REPLACEMENT;
            piece_len = sizeof REPLACEMENT - 1;
            step = 1;
        } else if (escape != NULL) {
            piece = escape;
            piece_len = strlen(escape);
            step = 1;
        } else {
            piece = (const char *)s + i;
            piece_len = seq;
            step = seq;
        }
        if (used + piece_len >= size) /* keep the NUL; never half an escape */
            break;
        memcpy(out + used, piece, piece_len);
        used += piece_len;
        i += step;
    }
    if (size > 0)
        out[used] = '\0';
    if (consumed)
        *consumed = i;
    return used;
}

/* Room the closing '"}' and '\n' need after the message. */
#define LINE_TAIL 3

size_t gr_log_json_line(char *buf, size_t size, long long epoch_ms, gr_log_level_t level,
                        const char *subsystem, int32_t broker_id, const char *msg, size_t len)
{
    char stamp[GR_LOG_STAMP_MAX], logger[64], broker[32] = "";
    const char *sub = subsystem ? subsystem : "-";
    gr_log_format_time(stamp, sizeof stamp, epoch_ms);
    gr_log_json_escape(logger, sizeof logger, sub, strlen(sub), NULL);
    if (broker_id >= 0)
        snprintf(broker, sizeof broker, "\"broker\":%d,", broker_id);
    int n =
        snprintf(buf, size, "{\"time\":\"%s\",\"level\":\"%s\",\"logger\":\"%s\",%s\"message\":\"",
                 stamp, gr_log_level_name(level), logger, broker);
    size_t used = n > 0 && (size_t)n < size - LINE_TAIL ? (size_t)n : 0;
    used += gr_log_json_escape(buf + used, size - used - LINE_TAIL, msg, len, NULL);
    memcpy(buf + used, "\"}\n", LINE_TAIL + 1);
    return used + LINE_TAIL;
}
