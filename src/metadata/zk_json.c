/* SPDX-License-Identifier: Apache-2.0 */
/*
 * JSON for Kafka's znodes: see zk_json.h. The reader is a recursive-descent
 * parser bounded by GR_ZK_JSON_MAX_DEPTH; decoded strings are never longer
 * than their escaped form, so each string is decoded into one allocation
 * sized from its raw length. The writer appends to one growing buffer kept
 * NUL-terminated, tracking the open containers to insert commas and to
 * refuse misuse instead of emitting invalid JSON.
 */
#include "metadata/zk_json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WRITER_INITIAL_CAP 128
#define UUID_BYTES         16
#define INT_TEXT_MAX       24

/* ---- reader ------------------------------------------------------------------------ */

typedef struct parser {
    const char *p;
    const char *end;
    int depth;
} parser_t;

static void skip_space(parser_t *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

void gr_zk_json_free(gr_zk_json_t *value)
{
    if (!value)
        return;
    for (size_t i = 0; i < value->count; i++) {
        if (value->keys)
            free(value->keys[i]);
        gr_zk_json_free(value->items[i]);
    }
    free(value->keys);
    free(value->items);
    free(value->string);
    free(value);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads the 4 hex digits after "\u". Returns the code unit or -1. */
static long read_u16(parser_t *ps)
{
    if (ps->end - ps->p < 4)
        return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(ps->p[i]);
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    ps->p += 4;
    return v;
}

static size_t put_utf8(char *out, unsigned long cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Decodes one escape (after the backslash) into out. Returns bytes written or -EINVAL. */
static int parse_escape(parser_t *ps, char *out)
{
    if (ps->p >= ps->end)
        return -EINVAL;
    char c = *ps->p++;
    switch (c) {
    case '"':
    case '\\':
    case '/':
        *out = c;
        return 1;
    case 'b':
        *out = '\b';
        return 1;
    case 'f':
        *out = '\f';
        return 1;
    case 'n':
        *out = '\n';
        return 1;
    case 'r':
        *out = '\r';
        return 1;
    case 't':
        *out = '\t';
        return 1;
    case 'u':
        break;
    default:
        return -EINVAL;
    }
    long cp = read_u16(ps);
    if (cp < 0 || (cp >= 0xdc00 && cp <= 0xdfff))
        return -EINVAL;
    if (cp >= 0xd800 && cp <= 0xdbff) {
        /* A high surrogate must be followed by an escaped low one. */
        if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
            return -EINVAL;
        ps->p += 2;
        long low = read_u16(ps);
        if (low < 0xdc00 || low > 0xdfff)
            return -EINVAL;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    return (int)put_utf8(out, (unsigned long)cp);
}

/* Parses a string starting at its opening quote. 0 or -errno. */
static int parse_string(parser_t *ps, char **out, size_t *out_len)
{
    ps->p++; /* the opening quote */
    const char *close = ps->p;
    while (close < ps->end && *close != '"')
        close += *close == '\\' && close + 1 < ps->end ? 2 : 1;
    if (close >= ps->end)
        return -EINVAL;
    char *s = malloc((size_t)(close - ps->p) + 1);
    if (!s)
        return -ENOMEM;
    size_t n = 0;
    while (ps->p < close) {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20) {
            free(s);
            return -EINVAL;
        }
        if (c != '\\') {
            s[n++] = (char)c;
            ps->p++;
            continue;
        }
        ps->p++;
        int w = parse_escape(ps, s + n);
        /* An escape may not run past the closing quote found above. */
        if (w < 0 || ps->p > close) {
            free(s);
            return -EINVAL;
        }
        n += (size_t)w;
    }
    ps->p = close + 1;
    s[n] = '\0';
    *out = s;
    *out_len = n;
    return 0;
}

static int parse_int(parser_t *ps, int64_t *out)
{
    bool negative = false;
    if (ps->p < ps->end && *ps->p == '-') {
        negative = true;
        ps->p++;
    }
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
        return -EINVAL;
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    const char *first = ps->p;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
        unsigned d = (unsigned)(*ps->p - '0');
        if (v > (limit - d) / 10)
            return -EINVAL;
        v = v * 10 + d;
        ps->p++;
    }
    if (*first == '0' && ps->p - first > 1)
        return -EINVAL; /* leading zero */
    if (ps->p < ps->end && (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E'))
        return -EINVAL; /* fractions and exponents are not supported */
    *out = negative ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return 0;
}

static bool take_literal(parser_t *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return false;
    ps->p += n;
    return true;
}

static int parse_value(parser_t *ps, gr_zk_json_t **out);

/* Appends item (and key, for objects) to container. 0 or -ENOMEM (nothing taken). */
static int container_add(gr_zk_json_t *c, char *key, gr_zk_json_t *item, size_t *cap)
{
    if (c->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        gr_zk_json_t **items = realloc(c->items, ncap * sizeof(*items));
        if (!items)
            return -ENOMEM;
        c->items = items;
        if (c->type == GR_ZK_JSON_OBJECT) {
            char **keys = realloc(c->keys, ncap * sizeof(*keys));
            if (!keys)
                return -ENOMEM;
            c->keys = keys;
        }
        *cap = ncap;
    }
    if (c->type == GR_ZK_JSON_OBJECT)
        c->keys[c->count] = key;
    c->items[c->count++] = item;
    return 0;
}

/* Parses the members of an object or array after its opening bracket into v. */
static int parse_container(parser_t *ps, gr_zk_json_t *v)
{
    bool object = v->type == GR_ZK_JSON_OBJECT;
    char close = object ? '}' : ']';
    size_t cap = 0;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        size_t key_len = 0;
        skip_space(ps);
        if (object) {
            if (ps->p >= ps->end || *ps->p != '"')
                return -EINVAL;
            int rc = parse_string(ps, &key, &key_len);
            if (rc)
                return rc;
            bool bad = strlen(key) != key_len || gr_zk_json_find(v, key) != NULL;
            skip_space(ps);
            if (bad || ps->p >= ps->end || *ps->p != ':') {
                free(key);
                return -EINVAL;
            }
            ps->p++;
        }
        gr_zk_json_t *item = NULL;
        int rc = parse_value(ps, &item);
        if (rc == 0) {
            rc = container_add(v, key, item, &cap);
            if (rc)
                gr_zk_json_free(item);
        }
        if (rc) {
            free(key);
            return rc;
        }
        skip_space(ps);
        if (ps->p >= ps->end)
            return -EINVAL;
        char c = *ps->p++;
        if (c == close)
            return 0;
        if (c != ',')
            return -EINVAL;
    }
}

static int parse_value(parser_t *ps, gr_zk_json_t **out)
{
    skip_space(ps);
    if (ps->p >= ps->end)
        return -EINVAL;
    gr_zk_json_t *v = calloc(1, sizeof(*v));
    if (!v)
        return -ENOMEM;
    int rc = 0;
    char c = *ps->p;
    if (c == '{' || c == '[') {
        v->type = c == '{' ? GR_ZK_JSON_OBJECT : GR_ZK_JSON_ARRAY;
        ps->p++;
        if (++ps->depth > GR_ZK_JSON_MAX_DEPTH)
            rc = -EINVAL;
        else
            rc = parse_container(ps, v);
        ps->depth--;
    } else if (c == '"') {
        v->type = GR_ZK_JSON_STRING;
        rc = parse_string(ps, &v->string, &v->string_len);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        v->type = GR_ZK_JSON_INT;
        rc = parse_int(ps, &v->integer);
    } else if (take_literal(ps, "true")) {
        v->type = GR_ZK_JSON_BOOL;
        v->boolean = true;
    } else if (take_literal(ps, "false")) {
        v->type = GR_ZK_JSON_BOOL;
    } else if (take_literal(ps, "null")) {
        v->type = GR_ZK_JSON_NULL;
    } else {
        rc = -EINVAL;
    }
    if (rc) {
        gr_zk_json_free(v);
        return rc;
    }
    *out = v;
    return 0;
}

int gr_zk_json_parse(const char *text, size_t len, gr_zk_json_t **out)
{
    parser_t ps = {.p = text, .end = text + len, .depth = 0};
    gr_zk_json_t *v = NULL;
    int rc = parse_value(&ps, &v);
    if (rc)
        return rc;
    skip_space(&ps);
    if (ps.p != ps.end) {
        gr_zk_json_free(v);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

const gr_zk_json_t *gr_zk_json_find(const gr_zk_json_t *value, const char *key)
{
    if (!value || value->type != GR_ZK_JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < value->count; i++)
        if (strcmp(value->keys[i], key) == 0)
            return value->items[i];
    return NULL;
}

/* ---- writer ------------------------------------------------------------------------ */

void gr_zk_json_writer_init(gr_zk_json_writer_t *w)
{
    memset(w, 0, sizeof(*w));
}

void gr_zk_json_writer_fini(gr_zk_json_writer_t *w)
{
    free(w->buf);
    memset(w, 0, sizeof(*w));
}

static void put(gr_zk_json_writer_t *w, const char *s, size_t n)
{
    if (w->err)
        return;
    if (w->len + n + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : WRITER_INITIAL_CAP;
        while (w->len + n + 1 > cap)
            cap *= 2;
        char *buf = realloc(w->buf, cap);
        if (!buf) {
            w->err = -ENOMEM;
            return;
        }
        w->buf = buf;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

static void put_quoted(gr_zk_json_writer_t *w, const char *s)
{
    put(w, "\"", 1);
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put(w, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put(w, esc, 6);
        } else {
            put(w, p, 1);
        }
    }
    put(w, "\"", 1);
}

/* Checks a value may come here and writes its separating comma. false on error. */
static bool value_begin(gr_zk_json_writer_t *w)
{
    if (w->err)
        return false;
    if (w->done) {
        w->err = -EINVAL;
        return false;
    }
    if (w->depth > 0) {
        int top = w->depth - 1;
        if (w->open[top] == '{') {
            if (!w->key_pending) {
                w->err = -EINVAL;
                return false;
            }
            w->key_pending = false;
        } else {
            if (w->has_items[top])
                put(w, ",", 1);
            w->has_items[top] = true;
        }
    }
    return true;
}

static void value_end(gr_zk_json_writer_t *w)
{
    if (w->depth == 0)
        w->done = true;
}

static void container_begin(gr_zk_json_writer_t *w, char open)
{
    if (!value_begin(w))
        return;
    if (w->depth == GR_ZK_JSON_MAX_DEPTH) {
        w->err = -EINVAL;
        return;
    }
    put(w, &open, 1);
    w->open[w->depth] = open;
    w->has_items[w->depth] = false;
    w->depth++;
}

static void container_end(gr_zk_json_writer_t *w, char open, char close)
{
    if (w->err)
        return;
    if (w->depth == 0 || w->open[w->depth - 1] != open || w->key_pending) {
        w->err = -EINVAL;
        return;
    }
    put(w, &close, 1);
    w->depth--;
    value_end(w);
}

void gr_zk_json_object_begin(gr_zk_json_writer_t *w)
{
    container_begin(w, '{');
}

void gr_zk_json_object_end(gr_zk_json_writer_t *w)
{
    container_end(w, '{', '}');
}

void gr_zk_json_array_begin(gr_zk_json_writer_t *w)
{
    container_begin(w, '[');
}

void gr_zk_json_array_end(gr_zk_json_writer_t *w)
{
    container_end(w, '[', ']');
}

void gr_zk_json_key(gr_zk_json_writer_t *w, const char *key)
{
    if (w->err)
        return;
    if (w->depth == 0 || w->open[w->depth - 1] != '{' || w->key_pending) {
        w->err = -EINVAL;
        return;
    }
    if (w->has_items[w->depth - 1])
        put(w, ",", 1);
    w->has_items[w->depth - 1] = true;
    put_quoted(w, key);
    put(w, ":", 1);
    w->key_pending = true;
}

void gr_zk_json_string(gr_zk_json_writer_t *w, const char *s)
{
    if (!value_begin(w))
        return;
    put_quoted(w, s);
    value_end(w);
}

void gr_zk_json_int(gr_zk_json_writer_t *w, int64_t v)
{
    if (!value_begin(w))
        return;
    char text[INT_TEXT_MAX];
    int n = snprintf(text, sizeof text, "%" PRId64, v);
    put(w, text, (size_t)n);
    value_end(w);
}

int gr_zk_json_writer_finish(gr_zk_json_writer_t *w, const char **out, size_t *len)
{
    if (w->err)
        return w->err;
    if (!w->done)
        return -EINVAL;
    *out = w->buf;
    *len = w->len;
    return 0;
}
