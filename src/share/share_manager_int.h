/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The share manager's insides (private to src/share/share_manager*.c): the
 * table of share-partitions and their persister writes.
 *
 * Runs on: loop thread.
 */
#ifndef GR_SHARE_MANAGER_INT_H
#define GR_SHARE_MANAGER_INT_H

#include <ev.h>

#include "share/share_manager.h"

#define GR_SHARE_MANAGER_BUCKETS 1024

typedef enum share_phase {
    SHARE_LOADING,      /* ReadShareGroupState in flight */
    SHARE_INITIALIZING, /* InitializeShareGroupState in flight */
    SHARE_READY,
} share_phase_t;

typedef struct share_entry share_entry_t;
typedef struct share_write share_write_t;

/* One change waiting for its WriteShareGroupState: in the write in flight
 * (sent) or in the next one. */
struct share_write {
    share_write_t *next;
    share_entry_t *entry;
    gr_share_ack_done_fn *done; /* NULL: nobody waits (expiry), or forgotten */
    void *arg;
    bool sent;
};

struct share_entry {
    share_entry_t *next; /* in its bucket */
    gr_share_manager_t *m;
    char *group_id;
    gr_uuid_t topic_id;
    int32_t partition;
    int32_t leader_epoch; /* the partition's when the entry was made */
    int32_t state_epoch;
    int64_t start_offset; /* resolved for a new group, while INITIALIZING */
    share_phase_t phase;
    gr_share_partition_t *sp; /* READY only */
    ev_timer lock_timer;      /* at the earliest lock deadline */
    share_write_t *writes;    /* waiting: in the write in flight, or for the next */
    bool writing;             /* a write is in flight (its persister opaque is the entry) */
};

struct gr_share_manager {
    gr_broker_t *b;
    gr_share_persister_t *persister;
    gr_share_sessions_t *sessions;
    share_entry_t *buckets[GR_SHARE_MANAGER_BUCKETS];
    int32_t count;
};

/* The entry of (group, topic id, partition), or NULL. */
share_entry_t *gr_share_manager_entry(gr_share_manager_t *m, gr_str_t group, gr_uuid_t topic_id,
                                      int32_t partition);
/* The partition of e if it is still led here, else NULL. */
gr_partition_t *gr_share_entry_partition(share_entry_t *e);
/* Writes e's durable state; done(arg, err) when written (done may be NULL). */
int gr_share_entry_write(share_entry_t *e, gr_share_ack_done_fn *done, void *arg);
/* Arms e's lock timer at its earliest deadline (or stops it). */
void gr_share_entry_arm(share_entry_t *e);
/* Records of e became acquirable: wakes the partition's waiting fetches. */
void gr_share_entry_wake(share_entry_t *e);

#endif
