/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A reader of the Java Properties format (what server.properties is written
 * in): natural lines end at \n, \r or \r\n; a line whose first non-blank
 * character is '#' or '!' is a comment; a line ending in an odd number of
 * backslashes continues on the next one (whose leading blanks are dropped);
 * the key runs to the first unescaped '=', ':' or blank, then blanks and at
 * most one '=' or ':' are skipped; the escapes \t \n \r \f \uXXXX are decoded
 * and any other \c stands for c.
 *
 * The reader only splits text into key/value pairs, in file order, keeping
 * duplicates; it knows no keys. Values are not trimmed: the caller trims
 * them, as Kafka trims before converting (core/config.c). No state beyond
 * the gr_properties_t the caller owns; any thread.
 */
#include "core/properties.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gr_properties_free(gr_properties_t *p)
{
    for (size_t i = 0; i < p->count; i++) {
        free(p->items[i].key);
        free(p->items[i].value);
    }
    free(p->items);
    p->items = NULL;
    p->count = 0;
}

int gr_properties_add(gr_properties_t *p, char *key, char *value)
{
    gr_property_t *items = realloc(p->items, sizeof(gr_property_t) * (p->count + 1));

    if (items == NULL) {
        free(key);
        free(value);
        return -ENOMEM;
    }
    p->items = items;
    p->items[p->count++] = (gr_property_t){key, value};
    return 0;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\f';
}

static bool is_eol(char c)
{
    return c == '\n' || c == '\r';
}

/* Appends the UTF-8 encoding of code point cp (< 0x10000) to out. */
static size_t put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
}

/*
 * Decodes the escapes of s[0..len) into a new string. A \uXXXX escape may
 * grow to 3 bytes from 6, so the output never outgrows the input. Returns
 * NULL with *bad set on a malformed \u escape, NULL without it on ENOMEM.
 */
static char *unescape(const char *s, size_t len, bool *bad)
{
    char *out = malloc(len + 1), *o = out;

    *bad = false;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\\') {
            *o++ = s[i];
            continue;
        }
        if (++i == len)
            break; /* a lone trailing backslash is dropped */
        switch (s[i]) {
        case 't':
            *o++ = '\t';
            break;
        case 'n':
            *o++ = '\n';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 'f':
            *o++ = '\f';
            break;
        case 'u': {
            unsigned cp = 0;
            if (len - i - 1 < 4) {
                *bad = true;
                free(out);
                return NULL;
            }
            for (int k = 1; k <= 4; k++) {
                char c = s[i + (size_t)k];
                int d = isdigit((unsigned char)c) ? c - '0'
                        : (c >= 'a' && c <= 'f')  ? c - 'a' + 10
                        : (c >= 'A' && c <= 'F')  ? c - 'A' + 10
                                                  : -1;
                if (d < 0) {
                    *bad = true;
                    free(out);
                    return NULL;
                }
                cp = cp * 16 + (unsigned)d;
            }
            i += 4;
            o += put_utf8(o, cp);
            break;
        }
        default:
            *o++ = s[i];
            break;
        }
    }
    *o = '\0';
    return out;
}

/*
 * Splits one logical line (continuations already joined, escapes not yet
 * decoded) into key and value and adds them to props.
 */
static int read_pair(const char *line, size_t len, gr_properties_t *props, int lineno,
                     const char *origin, char *err, size_t errlen)
{
    size_t k = 0, v;
    bool bad;

    while (k < len) {
        char c = line[k];
        if (c == '\\') {
            k += 2;
            continue;
        }
        if (c == '=' || c == ':' || is_blank(c))
            break;
        k++;
    }
    if (k > len)
        k = len;
    v = k;
    while (v < len && is_blank(line[v]))
        v++;
    if (v < len && (line[v] == '=' || line[v] == ':')) {
        v++;
        while (v < len && is_blank(line[v]))
            v++;
    }
    char *key = unescape(line, k, &bad);
    if (key == NULL)
        goto fail;
    char *value = unescape(line + v, len - v, &bad);
    if (value == NULL) {
        free(key);
        goto fail;
    }
    return gr_properties_add(props, key, value);
fail:
    if (!bad)
        return -ENOMEM;
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "%s:%d: malformed \\uXXXX escape", origin, lineno);
    return -EINVAL;
}

int gr_properties_read(const char *text, size_t len, const char *origin, gr_properties_t *props,
                       char *err, size_t errlen)
{
    char *line = NULL; /* the logical line being joined */
    size_t cap = 0, used = 0, pos = 0;
    int lineno = 0, rc = 0;

    while (pos < len) {
        int first_line = ++lineno;

        /* Leading blanks; a blank line or a comment line is skipped whole. */
        while (pos < len && is_blank(text[pos]))
            pos++;
        if (pos < len && (text[pos] == '#' || text[pos] == '!')) {
            while (pos < len && !is_eol(text[pos]))
                pos++;
        }
        if (pos == len || is_eol(text[pos])) {
            if (pos < len && text[pos] == '\r' && pos + 1 < len && text[pos + 1] == '\n')
                pos++;
            pos++;
            continue;
        }

        used = 0;
        for (;;) {
            size_t start = pos, backslashes = 0;
            while (pos < len && !is_eol(text[pos]))
                pos++;
            for (size_t i = pos; i > start && text[i - 1] == '\\'; i--)
                backslashes++;
            size_t n = pos - start;
            bool cont = backslashes % 2 == 1;
            if (cont)
                n--; /* the continuation backslash itself */
            if (used + n + 1 > cap) {
                size_t ncap = (used + n + 1) * 2;
                char *nl = realloc(line, ncap);
                if (nl == NULL) {
                    rc = -ENOMEM;
                    goto out;
                }
                line = nl;
                cap = ncap;
            }
            memcpy(line + used, text + start, n);
            used += n;
            /* Consume the line end (\r\n counts as one). */
            if (pos < len && text[pos] == '\r' && pos + 1 < len && text[pos + 1] == '\n')
                pos++;
            if (pos < len)
                pos++;
            if (!cont || pos >= len)
                break;
            lineno++;
            while (pos < len && is_blank(text[pos]))
                pos++;
        }
        rc = read_pair(line, used, props, first_line, origin, err, errlen);
        if (rc < 0)
            goto out;
    }
out:
    free(line);
    return rc;
}
