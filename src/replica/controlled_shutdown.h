/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Controlled shutdown (cluster mode, controlled.shutdown.enable): before a
 * broker stops, it asks the controller to move its leadership to other
 * in-sync replicas (ControlledShutdown), retrying up to
 * controlled.shutdown.max.retries times, controlled.shutdown.retry.backoff.ms
 * apart, while partitions with other replicas are still led here. Then, or
 * when the attempts are used up, done runs and the broker stops as usual.
 * A client of the controller like alter_partition.c: each attempt goes over
 * a gr_peer to the controller, except that a broker which is itself the
 * controller asks its own controller in-process, through the context's
 * b->ask_own_controller_shutdown hook (controller/ sits above replica/),
 * which answers through gr_controlled_shutdown_answered.
 *
 * Runs on: loop thread.
 */
#ifndef GR_REPLICA_CONTROLLED_SHUTDOWN_H
#define GR_REPLICA_CONTROLLED_SHUTDOWN_H

#include <stdbool.h>
#include <stdint.h>

typedef struct gr_broker gr_broker_t;
typedef void gr_controlled_shutdown_done_fn(gr_broker_t *b);

/* Whether b should shut down in a controlled way (cluster mode, enabled). */
bool gr_controlled_shutdown_wanted(const gr_broker_t *b);
/* Starts asking; done runs once, later. 0 or -errno (done never runs: stop at once). */
int gr_controlled_shutdown_start(gr_broker_t *b, gr_controlled_shutdown_done_fn *done);
/*
 * The answer of this broker's own controller to an attempt made through
 * b->ask_own_controller_shutdown: err, and the partitions still led here
 * (-1 when it answered at once, with an error). opaque is what the attempt
 * passed; an answer to an attempt no longer current is dropped.
 */
void gr_controlled_shutdown_answered(void *opaque, int16_t err, int32_t remaining);
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
