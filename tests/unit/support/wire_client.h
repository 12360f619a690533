/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Kafka client connection for unit tests, on a blocking loopback socket
 * to a test broker's listener: it writes a request frame, then runs the
 * broker's loop until the whole response frame is there (or the broker
 * closed the connection), never sleeping. Requests are encoded with the
 * generated codec, or given as raw body bytes for malformed ones.
 *
 * Runs on: the test's loop thread.
 */
#ifndef GR_TEST_WIRE_CLIENT_H
#define GR_TEST_WIRE_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <ev.h>

#include "protocol/arena.h"

typedef struct gr_wire_client {
    struct ev_loop *loop;
    int sock;
    int32_t correlation_id;
    gr_arena_t arena; /* decoded responses, until close */
} gr_wire_client_t;

/* Connects to 127.0.0.1:port; fails the test when it cannot. */
void gr_wire_open(gr_wire_client_t *c, struct ev_loop *loop, int32_t port);
void gr_wire_close(gr_wire_client_t *c);

/*
 * Sends msg (a struct of key's request type) at version v and decodes the
 * response into resp (a struct of its response type, living until close).
 * 0, or -1 when the broker closed the connection instead of answering.
 */
int gr_wire_call(gr_wire_client_t *c, int16_t key, int16_t v, const void *msg, void *resp);

/*
 * Sends a request of key at version v whose body is the len raw bytes, with
 * the header v (flexible) would have. Returns the response body (after the
 * response header; *len_out bytes, in the arena) or NULL when the broker
 * closed the connection.
 */
const uint8_t *gr_wire_call_raw(gr_wire_client_t *c, int16_t key, int16_t v, const uint8_t *body,
                                size_t len, size_t *len_out);

#endif
