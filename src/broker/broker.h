/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's lifecycle (the context itself is core/context.h): this is
 * the composition root, the one place that creates every subsystem and
 * wires them together.
 *
 * Lifecycle: gr_broker_init (config loaded) -> gr_broker_start (log dir
 * locked, metadata store opened under it, topics loaded from the store and
 * their partitions opened and recovered, the log manager's timers and
 * cleaner started (log_manager/), listeners bound)
 * -> ev_run -> gr_broker_stop (stop accepting, drain responses) ->
 * gr_broker_fini (store writes completed, store closed, logs flushed,
 * checkpoints and the clean-shutdown marker written).
 *
 * Clients are served only once this broker knows the cluster: single-node
 * mode keeps its listeners paused until its own controller's metadata is
 * applied (await_own_metadata); cluster mode opens them at once, for the
 * controller's connection, and parks client requests until it has
 * registered and heard from the controller (handlers/start_gate.h).
 *
 * Runs on: loop thread.
 */
#ifndef GR_BROKER_BROKER_H
#define GR_BROKER_BROKER_H

#include "core/context.h"

#define GR_BROKER_MAX_OPEN_SEGMENTS 8192

/* Initialises b with a loaded, resolved config (moved into b). 0 or -errno. */
int gr_broker_init(gr_broker_t *b, struct ev_loop *loop, gr_config_t *config);
/* Opens the log dir, recovers partitions, binds listeners. 0 or -errno (logged). */
int gr_broker_start(gr_broker_t *b);
/* Begins a graceful stop; the loop ends when connections have drained. */
void gr_broker_stop(gr_broker_t *b);
/* Flushes logs, writes checkpoints and the clean marker, frees everything. */
int gr_broker_fini(gr_broker_t *b);

#endif
