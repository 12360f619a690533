/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's replication machinery (one per broker, b->replication): the
 * replica fetchers (replica/fetcher.h), the leaders' ISR check
 * (replica/leader.h) and the connection to the controller for ISR changes
 * (replica/alter_partition.h).
 *
 * Runs on: loop thread.
 */
#ifndef GR_REPLICA_REPLICATION_H
#define GR_REPLICA_REPLICATION_H

#include <ev.h>
#include <stdint.h>

typedef struct gr_broker gr_broker_t;
typedef struct gr_peer gr_peer_t;
typedef struct gr_fetcher gr_fetcher_t;

struct gr_replication {
    gr_fetcher_t *fetchers;        /* one per (source broker, fetcher number) */
    ev_timer isr_check;            /* every replica.lag.time.max.ms / 2 */
    gr_peer_t *controller;         /* AlterPartition's connection, NULL until needed */
    int32_t controller_id;         /* the broker that connection goes to */
    uint64_t follower_fetch_bytes; /* record bytes appended from leaders */
    uint64_t alter_partitions;     /* AlterPartition requests sent */
    /* ISR changes the controller accepted for partitions led here, and
     * proposals it refused or that failed (Kafka's IsrShrinksPerSec,
     * IsrExpandsPerSec, FailedIsrUpdatesPerSec; observe/ reads them). */
    uint64_t isr_shrinks;
    uint64_t isr_expands;
    uint64_t failed_isr_updates;
};

/* Allocates b->replication and starts the ISR check. 0 or -ENOMEM. */
int gr_replication_start(gr_broker_t *b);
/* Stops every fetcher and the ISR check, closes the connections, frees. */
void gr_replication_stop(gr_broker_t *b);

#endif
