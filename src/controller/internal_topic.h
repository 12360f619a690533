/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Creating an internal topic on first use (__consumer_offsets for the group
 * coordinator, __transaction_state for the transaction coordinator), as
 * Kafka's coordinators do when FindCoordinator first names one: never with
 * fewer replicas than configured (a warning says which key to lower), and
 * through the controller in a cluster, so the caller answers
 * COORDINATOR_NOT_AVAILABLE until the topic has leaders.
 *
 * Runs on: loop thread.
 */
#ifndef GR_CONTROLLER_INTERNAL_TOPIC_H
#define GR_CONTROLLER_INTERNAL_TOPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "metadata/topic_config.h"
#include "protocol/kerr.h"

typedef struct gr_broker gr_broker_t;

/* One internal topic's creation parameters and what became of earlier attempts. */
typedef struct gr_internal_topic {
    const char *name;
    const char *factor_key; /* the server.properties key of the replication factor */
    const char *log_tag;    /* the subsystem in log lines */
    int32_t partitions;
    int32_t factor;
    const gr_topic_config_t *configs;
    int config_count;
    bool warned_replication; /* logged why the topic cannot be created */
    bool requested;          /* the controller was asked to create it */
} gr_internal_topic_t;

/*
 * Creates the topic unless it exists. NONE when it exists already (or was
 * created locally at once); COORDINATOR_NOT_AVAILABLE while it cannot be
 * created (too few brokers, an error: logged) or is being created.
 */
gr_kerr_t gr_internal_topic_create(gr_broker_t *b, gr_internal_topic_t *t);

#endif
