/* SPDX-License-Identifier: Apache-2.0 */
/* Internals of replica/requests.c and the three request files. Runs on: loop thread. */
#ifndef GR_REPLICA_REQUESTS_INT_H
#define GR_REPLICA_REQUESTS_INT_H

#include "protocol/kerr.h"
#include "replica/requests.h"

/*
 * Checks the controller's id and epoch: older than the newest seen gives
 * STALE_CONTROLLER_EPOCH; otherwise the sender is recorded as the controller.
 */
gr_kerr_t replica_fence(gr_replica_call_t *call, int32_t controller_id, int32_t epoch);

/* count elements of size bytes, zeroed, in the call's arena; never NULL for count <= 0. */
void *replica_alloc(gr_replica_call_t *call, int64_t count, size_t size);

/* Ends the call: done with the response, or with -ENOMEM when response is NULL. */
void replica_finish(gr_replica_call_t *call, const void *response);

void replica_leader_and_isr(gr_replica_call_t *call);
void replica_leader_and_isr_cancel(gr_replica_call_t *call);
void replica_update_metadata(gr_replica_call_t *call);
void replica_stop_replica(gr_replica_call_t *call);

#endif
