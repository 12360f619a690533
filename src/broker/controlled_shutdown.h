/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Controlled shutdown (cluster mode, controlled.shutdown.enable): before a
 * broker stops, it asks the controller to move its leadership to other
 * in-sync replicas (ControlledShutdown), retrying up to
 * controlled.shutdown.max.retries times, controlled.shutdown.retry.backoff.ms
 * apart, while partitions with other replicas are still led here. Then, or
 * when the attempts are used up, done runs and the broker stops as usual.
 * The broker itself being the controller asks its own controller in-process.
 *
 * Runs on: loop thread.
 */
#ifndef GR_BROKER_CONTROLLED_SHUTDOWN_H
#define GR_BROKER_CONTROLLED_SHUTDOWN_H

#include <stdbool.h>

typedef struct gr_broker gr_broker_t;
typedef void gr_controlled_shutdown_done_fn(gr_broker_t *b);

/* Whether b should shut down in a controlled way (cluster mode, enabled). */
bool gr_controlled_shutdown_wanted(const gr_broker_t *b);
/* Starts asking; done runs once, later. 0 or -errno (done never runs: stop at once). */
int gr_controlled_shutdown_start(gr_broker_t *b, gr_controlled_shutdown_done_fn *done);
/* Whether a controlled shutdown is under way. */
bool gr_controlled_shutdown_running(const gr_broker_t *b);
/* Stops asking (the broker stops at once); done does not run. Safe without a start. */
void gr_controlled_shutdown_cancel(gr_broker_t *b);
/*
 * Frees what it holds; done does not run. Safe without a start. After
 * gr_zk_member_stop: this broker's own controller answers no more.
 */
void gr_controlled_shutdown_fini(gr_broker_t *b);

#endif
