/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin's partition plans: the JSON files of kafka-reassign-partitions.sh
 * and kafka-leader-election.sh, read, checked, sorted, written back, and the
 * proposal of --generate. Pure functions (no connection), so unit tests
 * drive them directly (tests/unit/admin_plan_test.c).
 *
 * The file formats (Kafka's):
 *   reassignment  {"version":1,"partitions":[{"topic":"t","partition":0,
 *                  "replicas":[1,2],"log_dirs":["any","any"]}]}
 *                 log_dirs optional; only "any" (no JBOD moves), one per replica.
 *   election      {"partitions":[{"topic":"t","partition":0}]}
 *   topics        {"version":1,"topics":[{"topic":"t"}]}
 * A file is refused (-EINVAL, the reason in err) when it is not such a
 * document, a partition is listed twice, a replica list is empty or names a
 * broker twice, or a number is out of range.
 *
 * Memory: a plan owns its strings and arrays (malloc); gr_admin_plan_free.
 * Runs on: the main thread (no shared state).
 */
#ifndef GR_ADMIN_PLAN_H
#define GR_ADMIN_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "controller/replica_assignment.h"

#define GR_ADMIN_PLAN_ERR_MAX 256

typedef enum gr_admin_plan_kind {
    GR_ADMIN_PLAN_REASSIGNMENT, /* partitions with replicas, version 1 */
    GR_ADMIN_PLAN_ELECTION,     /* partitions only, no version */
    GR_ADMIN_PLAN_TOPICS,       /* topic names, version 1 */
} gr_admin_plan_kind_t;

/* One partition of a plan; replicas NULL (count 0) in election lists. */
typedef struct gr_admin_move {
    char *topic;
    int32_t partition;
    int32_t *replicas;
    int32_t replica_count;
} gr_admin_move_t;

typedef struct gr_admin_plan {
    gr_admin_move_t *moves;
    size_t count, cap;
    char **topics; /* GR_ADMIN_PLAN_TOPICS: the names, distinct */
    size_t topic_count;
} gr_admin_plan_t;

void gr_admin_plan_init(gr_admin_plan_t *p);
void gr_admin_plan_free(gr_admin_plan_t *p);

/*
 * Appends a partition (topic and replicas copied; replicas may be NULL).
 * 0 or -ENOMEM.
 */
int gr_admin_plan_add(gr_admin_plan_t *p, const char *topic, int32_t topic_len, int32_t partition,
                      const int32_t *replicas, int32_t replica_count);

/*
 * Parses len bytes of a kind file into p (initialised by the call).
 * 0; -EINVAL with the reason in err (p emptied); -ENOMEM.
 */
int gr_admin_plan_parse(gr_admin_plan_kind_t kind, const char *text, size_t len,
                        gr_admin_plan_t *p /* out */, char *err, size_t errlen);

/* Reads the file at path and parses it as gr_admin_plan_parse; -errno when unreadable. */
int gr_admin_plan_load(gr_admin_plan_kind_t kind, const char *path, gr_admin_plan_t *p /* out */,
                       char *err, size_t errlen);

/* Sorts the partitions by topic, then partition index (Kafka's output order). */
void gr_admin_plan_sort(gr_admin_plan_t *p);

/* The index of topic-partition in p, or -1. */
long gr_admin_plan_find(const gr_admin_plan_t *p, const char *topic, int32_t partition);

/*
 * The plan as a reassignment file, compact, every log_dirs "any":
 * {"version":1,"partitions":[...]} in p's order. Returns a malloc'd
 * NUL-terminated string (caller frees), or NULL on ENOMEM.
 */
char *gr_admin_plan_format(const gr_admin_plan_t *p);

/*
 * --generate: new replicas for every partition of current (sorted by topic
 * and partition, replicas set), each keeping its replication factor, over
 * the count brokers (sorted by id, distinct). Placement is
 * gr_replica_assign's (Kafka's AdminUtils) with a fixed seed, start 0 and
 * shift 0 for every topic, where Kafka picks them at random: the same
 * input always proposes the same plan. Racks are used as gr_replica_assign
 * does (all brokers racked); mode ENFORCED refuses a partly racked list.
 * 0 with out filled (initialised by the call); -EINVAL with err (a factor
 * above the broker count, partly racked brokers in ENFORCED); -ENOMEM.
 */
int gr_admin_plan_propose(const gr_admin_plan_t *current, const gr_replica_broker_t *brokers,
                          size_t count, gr_rack_mode_t mode, gr_admin_plan_t *out /* out */,
                          char *err, size_t errlen);

#endif
