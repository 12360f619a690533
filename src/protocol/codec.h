/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the generated codec exposes beyond each message's own functions: a
 * descriptor per message (so tests, the fuzzer and debug logging can handle
 * any message by name or API key) and the text dump shared with the oracle
 * fixtures (tests/fixtures/README.md).
 */
#ifndef GR_PROTOCOL_CODEC_H
#define GR_PROTOCOL_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "reader.h"
#include "writer.h"

#define GR_VERSION_NONE (-1)

typedef enum gr_message_kind {
    GR_MESSAGE_REQUEST,
    GR_MESSAGE_RESPONSE,
    GR_MESSAGE_HEADER,
    GR_MESSAGE_DATA,
} gr_message_kind_t;

/* One generated message. The void pointers are that message's struct. */
/* Called with each error code of a response (codec_desc.errors). */
typedef void gr_error_code_fn(void *ctx, int16_t code);

typedef struct gr_codec_desc {
    const char *name; /* schema name, e.g. "FetchRequest" */
    gr_message_kind_t kind;
    int16_t api_key; /* -1 for headers and data */
    int16_t min_version;
    int16_t max_version;
    int16_t flexible_min; /* GR_VERSION_NONE when never flexible */
    size_t struct_size;
    void (*init)(void *msg);
    /* Returns 0, or the reader's negative errno (-EBADMSG, -ENODATA, -ENOMEM). */
    int (*decode)(gr_reader_t *r, int16_t version, gr_arena_t *a, void *msg);
    /* Returns 0, or -EINVAL when msg holds what the version cannot carry. */
    int (*encode)(gr_writer_t *w, int16_t version, const void *msg);
    size_t (*size)(int16_t version, const void *msg);
    void (*dump)(gr_writer_t *text, int16_t version, const void *msg);
    /* Calls fn for every *ErrorCode field msg carries at version (Kafka's
     * errorCounts); NULL for messages without any (and for non-responses). */
    void (*errors)(int16_t version, const void *msg, gr_error_code_fn *fn, void *ctx);
} gr_codec_desc_t;

/* One API: versions the codec knows (not what the broker advertises). */
typedef struct gr_api_desc {
    int16_t key;
    const char *name;
    int16_t min_version;
    int16_t max_version;
    int16_t flexible_min; /* GR_VERSION_NONE when never flexible */
    const gr_codec_desc_t *request;
    const gr_codec_desc_t *response;
} gr_api_desc_t;

/* Text dump helpers used by the generated dump functions. */
void gr_dump_key(gr_writer_t *t, int *first, const char *name);
void gr_dump_int(gr_writer_t *t, int64_t v);
void gr_dump_bool(gr_writer_t *t, bool v);
void gr_dump_double(gr_writer_t *t, double v);
void gr_dump_str(gr_writer_t *t, gr_str_t s);
void gr_dump_hex(gr_writer_t *t, const uint8_t *p, int32_t len);
void gr_dump_uuid(gr_writer_t *t, gr_uuid_t u);
void gr_dump_null(gr_writer_t *t);
void gr_dump_char(gr_writer_t *t, char c);

#endif
