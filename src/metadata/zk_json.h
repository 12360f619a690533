/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The small JSON subset Kafka writes into its ZooKeeper nodes
 * (/brokers/topics/T, /config/topics/T, /cluster/id, /brokers/ids/N, ...),
 * shared by both metadata store modes: a writer producing compact JSON
 * (no spaces, as Kafka writes it) and a reader building a tree.
 *
 * Supported values: objects, arrays, strings (all JSON escapes, \u with
 * surrogate pairs, decoded to UTF-8), integers within int64, true, false,
 * null. Numbers with a fraction or exponent are rejected (-EINVAL): Kafka's
 * znodes carry none. Also rejected: anything malformed, duplicate keys in one
 * object, nesting deeper than GR_ZK_JSON_MAX_DEPTH, bytes after the value.
 *
 * Topic ids are written in Kafka's string form (protocol/uuid.h).
 *
 * Runs on: any thread; no shared state.
 */
#ifndef GR_METADATA_ZK_JSON_H
#define GR_METADATA_ZK_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/types.h"
#include "protocol/uuid.h"

#define GR_ZK_JSON_MAX_DEPTH 32

typedef enum gr_zk_json_type {
    GR_ZK_JSON_NULL,
    GR_ZK_JSON_BOOL,
    GR_ZK_JSON_INT,
    GR_ZK_JSON_STRING,
    GR_ZK_JSON_ARRAY,
    GR_ZK_JSON_OBJECT,
} gr_zk_json_type_t;

typedef struct gr_zk_json gr_zk_json_t;

/* A parsed value. Arrays use items/count; objects use keys/items/count in document order. */
struct gr_zk_json {
    gr_zk_json_type_t type;
    bool boolean;
    int64_t integer;
    char *string; /* NUL-terminated; may contain NULs from \u0000, see string_len */
    size_t string_len;
    char **keys; /* objects: NUL-terminated keys, parallel to items */
    gr_zk_json_t **items;
    size_t count;
};

/*
 * Parses len bytes of text (not NUL-terminated) into a tree.
 * Returns 0 and *out (free with gr_zk_json_free), -EINVAL for malformed or
 * unsupported input, -ENOMEM.
 */
int gr_zk_json_parse(const char *text, size_t len, gr_zk_json_t **out /* out */);

/* Frees a tree from gr_zk_json_parse (NULL is fine). */
void gr_zk_json_free(gr_zk_json_t *value);

/* The member key of an object, or NULL when absent or value is not an object. */
const gr_zk_json_t *gr_zk_json_find(const gr_zk_json_t *value, const char *key);

/*
 * A writer: call begin/end, key and value functions in document order, then
 * gr_zk_json_writer_finish. Errors are sticky (later calls do nothing) and
 * reported by finish: -ENOMEM, or -EINVAL for misuse (a value in an object
 * without its key, a key outside an object, unbalanced or too deep nesting,
 * a second top-level value).
 */
typedef struct gr_zk_json_writer {
    char *buf;
    size_t len, cap;
    int err;
    int depth;
    char open[GR_ZK_JSON_MAX_DEPTH]; /* '{' or '[' per open container */
    bool has_items[GR_ZK_JSON_MAX_DEPTH];
    bool key_pending; /* a key was written, its value is next */
    bool done;        /* the top-level value is complete */
} gr_zk_json_writer_t;

void gr_zk_json_writer_init(gr_zk_json_writer_t *w);
/* Frees the buffer (and so the text returned by finish). */
void gr_zk_json_writer_fini(gr_zk_json_writer_t *w);

void gr_zk_json_object_begin(gr_zk_json_writer_t *w);
void gr_zk_json_object_end(gr_zk_json_writer_t *w);
void gr_zk_json_array_begin(gr_zk_json_writer_t *w);
void gr_zk_json_array_end(gr_zk_json_writer_t *w);
/* Writes an object member's key (escaped); the next call writes its value. */
void gr_zk_json_key(gr_zk_json_writer_t *w, const char *key);
/* Writes a NUL-terminated string value, escaped. */
void gr_zk_json_string(gr_zk_json_writer_t *w, const char *s);
void gr_zk_json_int(gr_zk_json_writer_t *w, int64_t v);

/*
 * Ends writing. Returns 0 with *out pointing at len bytes of text, also
 * NUL-terminated, owned by the writer (valid until fini); or the sticky
 * error, -EINVAL if no complete top-level value was written.
 */
int gr_zk_json_writer_finish(gr_zk_json_writer_t *w, const char **out /* out */,
                             size_t *len /* out */);

#endif
