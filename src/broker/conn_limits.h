/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's connection-quota keys turned into the server's limits
 * (net/server.h): max.connections, max.connections.per.ip and its
 * overrides, max.connection.creation.rate, each of the first and last also
 * per listener as listener.name.<l>.<key> (falling back to the broker-wide
 * value, as Kafka's per-listener quotas do), and the inter-broker listener
 * protected from the broker-wide limit.
 *
 * Runs on: loop thread, at start-up and when a dynamic broker config
 * changes them (gr_conn_limits_apply).
 */
#ifndef GR_BROKER_CONN_LIMITS_H
#define GR_BROKER_CONN_LIMITS_H

#include "core/context.h"
#include "net/server.h"

/*
 * Fills scfg's broker-wide limits from b's config, resolving the overrides'
 * host names into b->ip_overrides. Returns 0, or -EINVAL (logged) for an
 * override that is not host:count or a host that does not resolve, or
 * max.connections.per.ip 0 with no overrides (Kafka refuses both), -ENOMEM.
 */
int gr_conn_limits_config(gr_broker_t *b, gr_server_config_t *scfg /* out */);

/*
 * Applies the per-listener limits and protects the inter-broker listener,
 * once every listener is open. Returns 0, or -EINVAL (logged) for a
 * listener.name.<l>.max.connections or .max.connection.creation.rate that
 * is not a non-negative integer.
 */
int gr_conn_limits_listeners(gr_broker_t *b);

/*
 * Applies the connection-quota keys of b->config to the running server, as
 * Kafka's SocketServer reconfigures them: broker-wide and per-listener
 * limits replaced, open connections left alone. A value that cannot be
 * applied (an override naming a host that does not resolve) is logged and
 * the limits in force are kept. b->on_broker_config_applied.
 */
void gr_conn_limits_apply(gr_broker_t *b);

/* Frees b->ip_overrides, after the server is gone. */
void gr_conn_limits_free(gr_broker_t *b);

#endif
