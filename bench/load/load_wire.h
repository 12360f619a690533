/* SPDX-License-Identifier: Apache-2.0 */
/*
 * load_wire: the blocking request/response plumbing the raw-protocol load
 * generators share (codec_load.c, share_load.c): a TCP connection to one
 * broker, whole request frames built with Gregor's generated codec, and
 * responses read and decoded into the API's response struct.
 *
 * A load_wire_t belongs to one thread; the memory of a decoded response
 * (strings, arrays, records) lives in its buffer and arena until the next
 * response is read on it.
 */
#ifndef GR_BENCH_LOAD_WIRE_H
#define GR_BENCH_LOAD_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/arena.h"
#include "protocol/writer.h"

#define LOAD_WIRE_MAX_RESPONSE (256 << 20)
#define LOAD_WIRE_CLIENT_ID    "gregor-bench"

typedef struct load_wire {
    int fd;              /* -1 when not connected */
    int32_t correlation; /* id of the last request load_wire_call sent */
    uint8_t *buf;        /* the last response's bytes */
    size_t cap;
    gr_arena_t arena; /* the last response's decoded arrays */
} load_wire_t;

/* Connects w to host:port. Returns 0 or a negative errno (w->fd stays -1). */
int load_wire_open(load_wire_t *w, const char *hostport);
/* Closes the socket and frees the buffers; safe on an unopened w. */
void load_wire_close(load_wire_t *w);

/* Writes n bytes to fd whatever the short writes. Returns 0 or -EIO. */
int load_wire_write_all(int fd, const uint8_t *p, size_t n);

/* Appends a whole request frame (size, header, body) for api key to out. 0 or -EINVAL. */
int load_wire_frame(gr_writer_t *out, int16_t key, int16_t version, int32_t correlation,
                    const void *msg);

/*
 * Reads one response of api key and decodes it into resp (that API's
 * response struct); the correlation id must match. Returns 0, -EIO on a
 * closed or broken connection, -EMSGSIZE, -ENOMEM or -EBADMSG.
 */
int load_wire_response(load_wire_t *w, int16_t key, int16_t version, int32_t correlation,
                       void *resp /* out */);

/* Sends msg as the next request on w and decodes its response into resp. 0 or -errno. */
int load_wire_call(load_wire_t *w, int16_t key, int16_t version, const void *msg,
                   void *resp /* out */);

#endif
