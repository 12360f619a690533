/* SPDX-License-Identifier: Apache-2.0 */
/* Private to the coordinator's files (coordinator*.c). */
#ifndef GR_GROUP_COORDINATOR_INT_H
#define GR_GROUP_COORDINATOR_INT_H

#include "group/coordinator.h"
#include "protocol/arena.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

/* Record key versions (Kafka's __consumer_offsets schemas). */
#define GR_OFFSET_KEY_VERSION_V0       0
#define GR_OFFSET_KEY_VERSION          1
#define GR_GROUP_KEY_VERSION           2
#define GR_OFFSET_VALUE_VERSION        3 /* with the leader epoch */
#define GR_OFFSET_VALUE_VERSION_EXPIRY 1 /* with an explicit expire timestamp */
#define GR_GROUP_VALUE_VERSION         3

typedef struct gr_partition gr_partition_t;

/*
 * Records to write as one batch (coordinator_records.c): keys and values
 * back to back in buf, positions resolved once complete. A record is
 * written as gr_record_set_key (then the key's fields into buf),
 * gr_record_set_value (then the value's fields, unless a tombstone),
 * gr_record_set_done.
 */
typedef struct gr_record_set {
    gr_writer_t buf;
    size_t *key_pos;
    size_t *key_end;
    size_t *value_pos;
    size_t *value_end; /* value_pos == value_end with tombstone set: null value */
    bool *tombstone;
    int32_t count;
    int32_t cap;
} gr_record_set_t;

void gr_record_set_init(gr_record_set_t *s);
void gr_record_set_fini(gr_record_set_t *s);
/* Starts a record: its key's int16 version. 0 or -ENOMEM. */
int gr_record_set_key(gr_record_set_t *s, int16_t key_version);
/* The key is written: the value's int16 version follows unless it is a tombstone. */
void gr_record_set_value(gr_record_set_t *s, int16_t value_version, bool tombstone);
/* The value is written. 0 or the writer's -errno. */
int gr_record_set_done(gr_record_set_t *s);
/*
 * Starts a KIP-848 or KIP-932 group record (key types 3-15): its key, the
 * group id alone or, with member non-NULL, (group id, member id), as those
 * schemas all lay it out; then the value's version unless a tombstone.
 * 0 or -ENOMEM (nothing started).
 */
int gr_record_set_group_key(gr_record_set_t *s, int16_t type, const char *group, const char *member,
                            int16_t value_version, bool tombstone);
/* Tombstones for the keys of types[0..n) of group (and member, unless NULL). 0 or -errno. */
int gr_record_set_tombstones(gr_record_set_t *s, const int16_t *types, size_t n, const char *group,
                             const char *member);
/* Appends the set as one coordinator batch to partition; *end: past it. 0 or -errno. */
int gr_record_set_append(gr_coordinator_t *co, int32_t partition, gr_record_set_t *s, int64_t *end);
/* Kafka's error for a failed coordinator write (-errno of gr_record_set_append). */
gr_kerr_t gr_coordinator_write_error(int rc);

/* Consumer groups' records (cgroup_records.c): env->store_consumer, and replay. */
gr_kerr_t gr_coordinator_store_consumer(void *opaque, gr_group_t *g, int64_t *written_end);
/* Deletes a consumer group's records (tombstones), for gr_coordinator_delete_group. 0 or -errno. */
int gr_cgroup_records_tombstones(gr_record_set_t *s, const gr_group_t *g);
/* Applies one replayed consumer-group record (key versions 3-8); as H.replay. */
int gr_cgroup_replay(gr_coordinator_t *co, int32_t partition, int version, gr_reader_t *key,
                     gr_bytes_t value, gr_arena_t *arena);
/*
 * Their resolved regexes (cgroup_regex_records.c, key type 16): the
 * tombstones of dropped ones, every resolved one, tombstones for all (group
 * deleted), replay. 0 or -errno.
 */
int gr_cgroup_regex_records_removed(gr_record_set_t *s, const gr_cgroup_t *cg);
int gr_cgroup_regex_records_put(gr_record_set_t *s, const gr_cgroup_t *cg, gr_arena_t *a);
int gr_cgroup_regex_records_tombstones(gr_record_set_t *s, const gr_cgroup_t *cg);
int gr_cgroup_regex_records_replay(gr_coordinator_t *co, int32_t partition, gr_reader_t *key,
                                   gr_bytes_t value, gr_arena_t *arena);
/* After a partition's replay: the consumer groups' sessions start again. */
void gr_cgroup_loaded(gr_coordinator_t *co, int32_t partition);

/*
 * Share groups' records (sgroup_records.c, key types 9-15): env->store_share,
 * the tombstones of a deleted group, replay (as gr_cgroup_replay), and the
 * sessions started again once a partition is loaded.
 */
gr_kerr_t gr_coordinator_store_share(void *opaque, gr_group_t *g, int64_t *written_end);
int gr_sgroup_records_tombstones(gr_record_set_t *s, const gr_group_t *g);
int gr_sgroup_replay(gr_coordinator_t *co, int32_t partition, int version, gr_reader_t *key,
                     gr_bytes_t value, gr_arena_t *arena);
void gr_sgroup_loaded(gr_coordinator_t *co, int32_t partition);

gr_topic_t *gr_coordinator_topic(gr_coordinator_t *co);

/* Leadership (coordinator_leadership.c). */
gr_coordinator_load_t gr_coordinator_load_state(const gr_coordinator_t *co, int32_t partition);
/* The runtime's H.unload: frees partition's groups; how many there were. */
size_t gr_coordinator_unload(void *owner, int32_t partition);
/* Iteration over every group in the table (take the next before removing g). */
gr_group_t *gr_coordinator_first(gr_coordinator_t *co);
gr_group_t *gr_coordinator_next(gr_coordinator_t *co, gr_group_t *g);
/* Unlinks and frees g. */
void gr_coordinator_remove(gr_coordinator_t *co, gr_group_t *g);

/* env callback (coordinator_records.c); the responders come from gr_coordinator_set_responders. */
gr_kerr_t gr_coordinator_store_group(void *opaque, gr_group_t *g);

/* Replay (coordinator_load.c): the runtime's record handler (H). */
extern const gr_coordinator_handler_t gr_coordinator_handler;

/* Transactional offsets (coordinator_txn.c). */
/* Holds v pending in g for producer_id and indexes the pair. 0 or -ENOMEM. */
int gr_coordinator_txn_pending_set(gr_coordinator_t *co, gr_group_t *g, int64_t producer_id,
                                   gr_str_t topic, int32_t partition,
                                   const gr_group_offset_value_t *v);
/* Completes (commit) or drops producer_id's pending offsets in partition's groups. */
void gr_coordinator_txn_complete(gr_coordinator_t *co, int32_t partition, int64_t producer_id,
                                 bool commit);
/* Forgets the index entries of partition (of group_id only, unless NULL). */
void gr_coordinator_txn_forget(gr_coordinator_t *co, int32_t partition, const char *group_id);
void gr_coordinator_txn_fini(gr_coordinator_t *co);

#endif
