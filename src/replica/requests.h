/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The controller's requests applied to this broker, decoded: LeaderAndIsr,
 * UpdateMetadata and StopReplica. They come two ways and take the same code:
 * from a controller over the network (handlers/controller_requests.c), and
 * from this broker's own controller when the broker it addresses is this one
 * (controller/controller_local.c, no socket). Either way the same controller
 * epoch fencing applies.
 *
 * A call is filled by its caller and started; done is called exactly once,
 * possibly from inside gr_replica_call_start, unless the call is cancelled
 * first. The request and the arena must stay valid until then; the response
 * handed to done lives in the arena.
 *
 * Runs on: loop thread.
 */
#ifndef GR_REPLICA_REQUESTS_H
#define GR_REPLICA_REQUESTS_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/arena.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_replica_call gr_replica_call_t;
typedef struct gr_topic_configs_fetch gr_topic_configs_fetch_t;

/*
 * rc: 0 with the response (a struct of the API's response type), or -ENOMEM
 * (or -EPROTONOSUPPORT for another API) and NULL.
 */
typedef void gr_replica_done_fn(gr_replica_call_t *call, int rc, const void *response);

struct gr_replica_call {
    /* Set by the caller. */
    gr_broker_t *b;
    int16_t api_key; /* GR_API_LEADER_AND_ISR, GR_API_UPDATE_METADATA or GR_API_STOP_REPLICA */
    int16_t version;
    bool from_network; /* sent by a controller over a connection */
    const void *request;
    gr_arena_t *arena;
    gr_replica_done_fn *done;
    void *opaque;
    /* Private. */
    void *state;
    gr_topic_configs_fetch_t *fetch; /* LeaderAndIsr: topic configs being read first */
};

/* Whether api_key is one of the controller's requests above. */
bool gr_replica_call_handles(int16_t api_key);

void gr_replica_call_start(gr_replica_call_t *call);

/* Drops a call whose done has not run yet: done will not be called. */
void gr_replica_call_cancel(gr_replica_call_t *call);

#endif
