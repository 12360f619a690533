/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Admin requests (CreateTopics, DeleteTopics, CreatePartitions, and
 * Metadata or FindCoordinator that auto-create a topic) answer once their
 * change is visible in this broker's metadata, or at the request's
 * timeout_ms, as Kafka's controller does. A
 * wait holds the deferred request: ZooKeeper writes in flight hold it too
 * (gr_admin_wait_hold/release); when none is left, ready(req, arg) is asked
 * at once and then every GR_ADMIN_WAIT_POLL_SEC until it says yes or the
 * deadline passes, and finish(req, arg, timed_out) fills in and sends the
 * response. If the client goes away first, finish is never called and the
 * wait is freed once its writes have completed.
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_ADMIN_WAIT_H
#define GR_HANDLERS_ADMIN_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "handlers/request.h"

#define GR_ADMIN_WAIT_POLL_SEC 0.01

typedef struct gr_admin_wait gr_admin_wait_t;
typedef bool gr_admin_ready_fn(gr_request_t *req, void *arg);
typedef void gr_admin_finish_fn(gr_request_t *req, void *arg, bool timed_out);

/* Defers req; NULL without memory (the caller answers at once). */
gr_admin_wait_t *gr_admin_wait_new(gr_request_t *req, int32_t timeout_ms, gr_admin_ready_fn *ready,
                                   gr_admin_finish_fn *finish, void *arg);
void gr_admin_wait_hold(gr_admin_wait_t *w);
void gr_admin_wait_release(gr_admin_wait_t *w);
/* The request, or NULL once the client went away. */
gr_request_t *gr_admin_wait_request(gr_admin_wait_t *w);

#endif
