/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fake peer for controller unit tests: it sits on the controller's tap
 * (gr_controller_t.tap, controller/controller.h) and records every
 * LeaderAndIsr, UpdateMetadata and StopReplica the controller sends, per
 * broker id, as a decoded copy made through the wire codec (so it carries
 * exactly what the wire would). Requests to pass_broker (the broker the
 * controller runs on) are recorded and then delivered as usual; the others
 * wait until the test answers them (gr_fake_peer_answer), or are answered
 * with an empty success on the next loop turn when auto_answer is set.
 *
 * Runs on: the test's loop thread.
 */
#ifndef GR_TEST_FAKE_PEER_H
#define GR_TEST_FAKE_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ev.h>

#include "controller/controller.h"
#include "protocol/arena.h"

typedef void gr_fake_peer_cb_fn(void *opaque, int rc, const void *response);

typedef struct gr_fake_request {
    int32_t broker_id;
    int16_t api_key;
    int16_t version;
    void *request; /* decoded copy, a struct of the API's request type */
    gr_fake_peer_cb_fn *cb;
    void *cb_opaque;
    bool waiting; /* taken, not answered yet */
} gr_fake_request_t;

typedef struct gr_fake_peer {
    gr_controller_t *c;
    struct ev_loop *loop;
    int32_t pass_broker; /* delivered as usual after recording; -1: none */
    bool auto_answer;
    gr_arena_t arena;
    gr_fake_request_t **requests; /* oldest first */
    size_t count, cap;
    ev_timer answer_timer; /* auto_answer's next turn */
} gr_fake_peer_t;

/* Puts fp on c's tap. */
void gr_fake_peer_install(gr_fake_peer_t *fp, gr_controller_t *c, struct ev_loop *loop,
                          int32_t pass_broker, bool auto_answer);
/* Fails every waiting request with -ECANCELED, leaves the tap, frees the records. */
void gr_fake_peer_remove(gr_fake_peer_t *fp);

/* Answers every waiting request: rc 0 with an empty success response, or rc (< 0) as a failure. */
void gr_fake_peer_answer(gr_fake_peer_t *fp, int rc);

/* Requests recorded for broker (-1: any) of api_key. */
size_t gr_fake_peer_count(const gr_fake_peer_t *fp, int32_t broker, int16_t api_key);
/* The newest request recorded for broker of api_key, or NULL. */
const void *gr_fake_peer_last(const gr_fake_peer_t *fp, int32_t broker, int16_t api_key);

#endif
